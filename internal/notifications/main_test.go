package notifications

import (
	"testing"

	"library/internal/testkit/pgtest"
)

// TestMain gives the tests a throwaway PostgreSQL (or TEST_DATABASE_URL) for the record of
// accepted emails.
func TestMain(m *testing.M) { pgtest.Main(m) }
