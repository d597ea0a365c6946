package books_test

import (
	"testing"

	"library/internal/pgtest"
)

// TestMain gives the catalog's tests a real PostgreSQL (see pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }
