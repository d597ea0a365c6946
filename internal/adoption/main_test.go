package adoption_test

import (
	"testing"

	"library/internal/testkit/pgtest"
)

// TestMain gives the upgrade's test a real PostgreSQL (see pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }
