// Package acceptedtest holds the contract every record of the emails the relay accepted keeps
// (notifications.AcceptedEmails), for the tests of the one kept in memory and the one kept in
// PostgreSQL.
package acceptedtest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/notifications"
)

// Contract is the contract of every record of accepted emails (notifications.AcceptedEmails): an email is accepted once recorded, and
// recording it again, even many times at once, keeps the first record.
func Contract(t *testing.T, record notifications.AcceptedEmails) {
	ctx := t.Context()
	const id = "<notifications.7.x.i@library.test>"
	accepted, err := record.Accepted(ctx, id)
	require.NoError(t, err)
	require.False(t, accepted)

	first := notifications.Acceptance{MessageID: id, Position: 7, LoanID: "loan-7", AcceptedAt: time.Now().UTC(), Attempts: 2}
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

	// Many emails recorded at once (written together, in PostgreSQL): each is accepted by the
	// time its Record returns, with what it was recorded with.
	for i := range 50 {
		wg.Go(func() {
			a := notifications.Acceptance{MessageID: fmt.Sprintf("<notifications.%d.x.i@library.test>", 100+i), Position: int64(100 + i),
				LoanID: fmt.Sprintf("loan-%d", 100+i), AcceptedAt: time.Now().UTC().Truncate(time.Microsecond), Attempts: 1 + i%3}
			require.NoError(t, record.Record(ctx, a))
			accepted, err := record.Accepted(ctx, a.MessageID)
			require.NoError(t, err)
			require.True(t, accepted, a.MessageID)
		})
	}
	wg.Wait()
	exported, ok := record.(interface {
		ForLoans(ctx context.Context, loanIDs []string) ([]notifications.Acceptance, error)
	})
	require.True(t, ok)
	got, err := exported.ForLoans(ctx, []string{"loan-7", "loan-120", "loan-149"})
	require.NoError(t, err)
	require.Len(t, got, 3)
	for _, a := range got {
		if a.LoanID == "loan-7" {
			continue
		}
		var n int
		_, err := fmt.Sscanf(a.LoanID, "loan-%d", &n)
		require.NoError(t, err)
		require.Equal(t, notifications.Acceptance{MessageID: fmt.Sprintf("<notifications.%d.x.i@library.test>", n), Position: int64(n), LoanID: a.LoanID,
			AcceptedAt: a.AcceptedAt, Attempts: 1 + (n-100)%3}, a, "recorded as given")
	}
}
