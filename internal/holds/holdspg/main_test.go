package holdspg

import (
	"testing"

	"library/internal/testkit/pgtest"
)

// TestMain gives the holds view's PostgreSQL tests a real PostgreSQL (see pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }
