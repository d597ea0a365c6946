package app_test

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/pgtest"
)

// An erasure and a loan to the same member, sent at the same moment (on two replicas where
// there is a database), never both succeed: the loan is written to the member's account in
// the same append as to the book, so the two conflict on the account's stream, and the one
// decided second sees what the first did. Either the member is erased and the book stays on
// the shelf (410), or the book is lent and the erasure is refused (409).
func TestErasureAndALoanNeverBothSucceed(t *testing.T) {
	t.Parallel()
	const pairs = 400
	for _, store := range stores {
		t.Run(store.Name, func(t *testing.T) {
			t.Parallel()
			lender, eraser := erasureRaceReplicas(t, store.Name)
			var both, erased, lent atomic.Int32
			var pairsDone sync.WaitGroup
			slots := make(chan struct{}, 8)
			for i := range pairs {
				slots <- struct{}{}
				pairsDone.Go(func() {
					defer func() { <-slots }()
					member, book := fmt.Sprintf("m-race-%d", i), fmt.Sprintf("race-%d", i)
					setContact(t, lender, member, "Rae Tracer", "")
					addBook(t, lender, book)
					var lendStatus, eraseStatus int
					var pair sync.WaitGroup
					// A 503 (a machine too busy to decide in time) is sent again, as a client
					// would: both requests are safe to repeat.
					pair.Go(func() {
						lendStatus = retried503(t, func() int {
							return lender.Call(t, http.MethodPost, "/books/"+book+"/loans", obj{"loanId": "loan-1", "memberId": member}).Status
						})
					})
					pair.Go(func() {
						eraseStatus = retried503(t, func() int { return eraser.Call(t, http.MethodPost, "/accounts/"+member+"/erasure", nil).Status })
					})
					pair.Wait()
					// An erasure sent again after a 503 that had erased is answered 200.
					erasedNow := eraseStatus == http.StatusCreated || eraseStatus == http.StatusOK
					switch {
					case lendStatus == http.StatusCreated && erasedNow:
						both.Add(1)
					case lendStatus == http.StatusCreated && eraseStatus == http.StatusConflict:
						lent.Add(1)
					case lendStatus == http.StatusGone && erasedNow:
						erased.Add(1)
					default:
						t.Errorf("pair %d: lend %d, erasure %d", i, lendStatus, eraseStatus)
					}
				})
			}
			pairsDone.Wait()
			t.Logf("%d pairs: %d lent, %d erased, %d both", pairs, lent.Load(), erased.Load(), both.Load())
			require.Zero(t, both.Load(), "a member erased with a book out")
			require.Equal(t, int32(pairs), lent.Load()+erased.Load())
		})
	}
}

// erasureRaceReplicas returns where to lend and where to erase: one service in memory, two
// replicas of one database on PostgreSQL.
func erasureRaceReplicas(t *testing.T, store string) (lender, eraser *api) {
	t.Helper()
	if store != "postgres" {
		a := &api{Base: startService(t, app.Config{}), Store: store}
		return a, a
	}
	databaseURL := pgtest.NewDatabase(t)
	var apis []*api
	for _, name := range []string{"a", "b"} {
		base, _ := runService(t, app.Config{DatabaseURL: databaseURL, ReplicaID: name})
		apis = append(apis, &api{Base: base, Store: store})
	}
	return apis[0], apis[1]
}

// retried503 sends a request until its answer is not 503, a few times at most, and returns the
// last answer's status.
func retried503(t *testing.T, send func() int) int {
	t.Helper()
	status := send()
	for try := 1; status == http.StatusServiceUnavailable && try < 5; try++ {
		time.Sleep(time.Duration(try) * 100 * time.Millisecond) // a client's backoff before it sends again
		status = send()
	}
	return status
}
