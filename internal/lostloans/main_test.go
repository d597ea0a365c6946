package lostloans_test

import (
	"testing"

	"library/internal/testkit/pgtest"
)

// TestMain gives the tests a throwaway PostgreSQL (or TEST_DATABASE_URL).
func TestMain(m *testing.M) { pgtest.Main(m) }
