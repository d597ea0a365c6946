package app_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/pgtest"
)

// Two replicas write one stream by turns, each deciding on the aggregate it keeps (which the
// other's writes leave behind), and every key is sent to both: nothing is lost, no key is
// decided twice, and each retry gets its first answer from the other replica, byte for byte.
// Several callers do it at once, so the replicas also race each other on the stream.
func TestTwoReplicasAlternateOnOneStream(t *testing.T) {
	t.Parallel()
	databaseURL := pgtest.NewDatabase(t)
	var replicas [2]*api
	for i := range replicas {
		replicas[i] = &api{Base: startService(t, fastBackground(app.Config{DatabaseURL: databaseURL, ReplicaID: fmt.Sprint("r", i)})), Store: "postgres"}
	}
	const callers, rounds = 4, 15
	fine(t, replicas[0], "alice", callers*rounds*2*100, "a lot of lost books")

	var wg sync.WaitGroup
	for c := range callers {
		wg.Go(func() {
			for i := range rounds {
				first, again := replicas[(c+i)%2], replicas[(c+i+1)%2]
				key := fmt.Sprintf("c%d-k%d", c, i)
				r1, err := first.TrySend(http.MethodPost, "/accounts/alice/payments", []byte(`{"amount":100}`), "Idempotency-Key", key)
				if !assert.NoError(t, err) || !assert.Equal(t, http.StatusCreated, r1.Status, "%s: %s", key, r1.Body) {
					return
				}
				r2, err := again.TrySend(http.MethodPost, "/accounts/alice/payments", []byte(`{"amount":100}`), "Idempotency-Key", key)
				if !assert.NoError(t, err) {
					return
				}
				assert.Equal(t, r1.Status, r2.Status, key)
				assert.Equal(t, string(r1.Body), string(r2.Body), "%s: the first answer, from the other replica", key)
				assert.Equal(t, "true", r2.Header.Get("Idempotent-Replayed"), key)
				// A payment without a key, by turns too: nothing lost.
				r3, err := again.TrySend(http.MethodPost, "/accounts/alice/fines", []byte(`{"amount":100,"reason":"late"}`))
				assert.NoError(t, err)
				assert.Equal(t, http.StatusCreated, r3.Status, "%s", r3.Body)
			}
		})
	}
	wg.Wait()

	pool := pgtest.Connect(t, databaseURL)
	var events, keys, distinct int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*), count(metadata->>'commandId'),
		count(DISTINCT metadata->>'commandId') FROM events WHERE stream_id = 'account-alice'`).Scan(&events, &keys, &distinct))
	assert.Equal(t, 1+2*callers*rounds, events, "one fine, and each round's payment and fine once")
	assert.Equal(t, callers*rounds, keys)
	assert.Equal(t, keys, distinct, "no key recorded twice")
	for _, r := range replicas {
		acc := getAccount(t, r, "alice")
		assert.EqualValues(t, callers*rounds*2*100, acc.Balance, "the fines paid off, the late fines still owed")
		assert.EqualValues(t, events, acc.Version)
	}
}
