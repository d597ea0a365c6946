package app_test

import (
	"testing"

	"library/internal/testkit/pgtest"
)

// TestMain starts (or finds) the PostgreSQL server that the contract tests' "postgres" store
// runs on; see pgtest.
func TestMain(m *testing.M) { pgtest.Main(m) }
