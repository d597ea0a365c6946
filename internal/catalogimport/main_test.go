package catalogimport_test

import (
	"testing"

	"library/internal/testkit/pgtest"
)

// TestMain gives the tests on PostgreSQL a real one (see pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }
