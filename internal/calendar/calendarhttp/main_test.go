package calendarhttp_test

import (
	"testing"

	"library/internal/testkit/pgtest"
)

// TestMain gives the tests on both stores a real PostgreSQL (see pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }
