package catalogimport_test

import (
	"testing"

	"library/internal/testkit/pgtest"
)

// TestMain gives the export's PostgreSQL test a real PostgreSQL (see pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }
