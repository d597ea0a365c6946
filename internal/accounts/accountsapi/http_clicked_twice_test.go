package accountsapi_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// The "I clicked twice" story: Alice owes two fines of 300 and pays 300; the
// answer is lost and the page sends the same request again with the same key. One payment is
// recorded, the second answer is the first, and she still owes 300. The key can't be reused
// for a fine.
func TestHTTPClickedTwice(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		apitest.Fine(t, a, "alice", 300, "Dune, 10 days late")
		apitest.Fine(t, a, "alice", 300, "Neuromancer, 10 days late")

		const key = "7b6f0e1c-pay-dune"
		first := apitest.Pay(t, a, "alice", 300, key)
		res := apitest.RequireResult(t, first, http.StatusCreated, "account-alice")
		apitest.RequireEvent(t, res, "PaymentReceived", `{"amount":300}`)
		again := apitest.Pay(t, a, "alice", 300, key)
		apitest.RequireReplay(t, first, again)

		acc := apitest.GetAccount(t, a, "alice")
		assert.EqualValues(t, 300, acc.Balance, "one payment, 3 euros still owed")
		assert.EqualValues(t, 3, acc.Version, "two fines and one PaymentReceived")

		r := a.Call(t, http.MethodPost, "/accounts/alice/fines", apitest.Obj{"amount": 100, "reason": "Lost card"}, "Idempotency-Key", key)
		p := apitest.RequireProblem(t, r, http.StatusUnprocessableEntity, "IdempotencyKeyReused")
		assert.Contains(t, p.Detail, `"pay"`)
	})
}

// Concurrent requests with one key all get the first answer and exactly one of them writes:
// the double click where the second request arrives before the first has answered.
func TestHTTPConcurrentPaymentsWithOneKey(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		apitest.Fine(t, a, "alice", 300, "Dune, 10 days late")
		apitest.Fine(t, a, "alice", 300, "Neuromancer, 10 days late")

		const n = 8
		answers := make([]apitest.Response, n)
		failures := make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				<-start
				answers[i], failures[i] = a.TrySend(http.MethodPost, "/accounts/alice/payments",
					[]byte(`{"amount":300}`), "Idempotency-Key", "one-click")
			})
		}
		close(start)
		wg.Wait()

		replays := 0
		for i, r := range answers {
			require.NoError(t, failures[i])
			require.Equal(t, http.StatusCreated, r.Status, "answer %d: %s", i, r.Body)
			require.Equal(t, string(answers[0].Body), string(r.Body), "answer %d is the first answer", i)
			if r.Header.Get("Idempotent-Replayed") == "true" {
				replays++
			}
		}
		assert.Equal(t, n-1, replays, "exactly one request wrote; the others were replays")
		acc := apitest.GetAccount(t, a, "alice")
		assert.EqualValues(t, 300, acc.Balance)
		assert.EqualValues(t, 3, acc.Version)
	})
}
