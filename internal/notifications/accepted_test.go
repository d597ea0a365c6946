package notifications

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/pgtest"
)

func TestMemoryAcceptedEmails(t *testing.T) {
	t.Parallel()
	testAcceptedEmails(t, NewMemoryAcceptedEmails())
}

func TestPostgresAcceptedEmails(t *testing.T) {
	t.Parallel()
	testAcceptedEmails(t, NewPostgresAcceptedEmails(pgtest.NewPool(t)))
}

// testAcceptedEmails is the contract of both records: an email is accepted once recorded, and
// recording it again, even many times at once, keeps the first record.
func testAcceptedEmails(t *testing.T, record AcceptedEmails) {
	ctx := t.Context()
	const id = "<notifications.7.x.i@library.test>"
	accepted, err := record.Accepted(ctx, id)
	require.NoError(t, err)
	require.False(t, accepted)

	first := Acceptance{MessageID: id, Position: 7, LoanID: "loan-7", AcceptedAt: time.Now().UTC(), Attempts: 2}
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			again := first
			again.Attempts = 3 + i
			if i == 0 {
				again = first
			}
			require.NoError(t, record.Record(ctx, again))
		})
	}
	wg.Wait()
	accepted, err = record.Accepted(ctx, id)
	require.NoError(t, err)
	require.True(t, accepted)
	accepted, err = record.Accepted(ctx, "<notifications.8.x.i@library.test>")
	require.NoError(t, err)
	require.False(t, accepted, "another email")
}
