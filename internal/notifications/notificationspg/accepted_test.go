package notificationspg

import (
	"testing"

	"library/internal/testkit/acceptedtest"
	"library/internal/testkit/pgtest"
)

// TestMain gives the tests a throwaway PostgreSQL (or TEST_DATABASE_URL).
func TestMain(m *testing.M) { pgtest.Main(m) }

func TestAcceptedEmails(t *testing.T) {
	t.Parallel()
	acceptedtest.Contract(t, NewAcceptedEmails(pgtest.NewPool(t)))
}
