package titlesapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
)

// twoReplicas starts two replicas of the service on one new PostgreSQL database, with room for
// holdsMax members in a title's queue, and returns them and the database's URL.
func twoReplicas(t *testing.T, holdsMax int) ([]*apitest.API, string) {
	t.Helper()
	databaseURL := pgtest.NewDatabase(t)
	var replicas []*apitest.API
	for _, name := range []string{"a", "b"} {
		base := apitest.StartService(t, app.Config{DatabaseURL: databaseURL, ReplicaID: name, HoldsMax: holdsMax})
		replicas = append(replicas, &apitest.API{Base: base, Store: "postgres"})
	}
	return replicas, databaseURL
}

// all sends the requests at once, each through the replica of its turn, and checks each is
// answered 201.
func all(t *testing.T, replicas []*apitest.API, paths []string, bodies []apitest.Obj, keys []string) {
	t.Helper()
	answers := make([]apitest.Response, len(paths))
	failures := make([]error, len(paths))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range paths {
		wg.Go(func() {
			body, err := json.Marshal(bodies[i])
			if err != nil {
				failures[i] = err
				return
			}
			<-start
			answers[i], failures[i] = replicas[i%len(replicas)].TrySend(http.MethodPost, paths[i], body, "Idempotency-Key", keys[i])
		})
	}
	close(start)
	wg.Wait()
	for i, r := range answers {
		require.NoError(t, failures[i], "request %d", i)
		require.Equal(t, http.StatusCreated, r.Status, "POST %s: %s", paths[i], r.Body)
	}
}

// Every copy of a title comes back at once, through two replicas, with more members waiting
// than there are copies: each copy is held for one member, each of them one of the first in
// line, none twice, and those behind them wait on, in their order. Each trap is one append
// across the title and the copy: the title's HoldTrapped and the copy's BookHeld share a
// transaction, so neither is ever seen without the other.
func TestHTTPAllCopiesComeBackAtOnceOnTwoReplicas(t *testing.T) {
	t.Parallel()
	const copies, waiting = 6, 10
	replicas, databaseURL := twoReplicas(t, 20)
	a := replicas[0]
	apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles", apitest.Obj{"id": "dune", "title": "Dune", "authors": []string{"Frank Herbert"}}),
		http.StatusCreated, "title-dune")
	var paths, keys []string
	var bodies []apitest.Obj
	for i := range copies {
		book := fmt.Sprintf("dune-%d", i)
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles/dune/copies", apitest.Obj{"id": book, "barcode": fmt.Sprintf("B%d", i)}),
			http.StatusCreated, "book-"+book)
		apitest.Lend(t, a, book, "loan-"+book, fmt.Sprintf("reader-%d", i))
		paths, bodies, keys = append(paths, "/books/"+book+"/returns"), append(bodies, apitest.Obj{"loanId": "loan-" + book}), append(keys, "back-"+book)
	}
	var line []string
	for i := range waiting {
		member := fmt.Sprintf("m%02d", i)
		apitest.SetContact(t, a, member, member, "")
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles/dune/holds", apitest.Obj{"memberId": member}, "Idempotency-Key", "h-"+member),
			http.StatusCreated, "title-dune")
		line = append(line, member)
	}

	all(t, replicas, paths, bodies, keys)

	q := apitest.ReadQueue(t, replicas[1], "dune")
	held := map[string]string{}
	for _, r := range q.Ready {
		require.NotContains(t, held, r.MemberID, "%s holds two copies", r.MemberID)
		held[r.MemberID] = r.BookID
	}
	require.Len(t, held, copies, "every copy is held for one member")
	for _, m := range line[:copies] {
		assert.Contains(t, held, m, "the first %d in line hold a copy each", copies)
	}
	var still []string
	for i, w := range q.Waiting {
		assert.Equal(t, i+1, w.Place)
		still = append(still, w.MemberID)
	}
	assert.Equal(t, line[copies:], still, "those behind wait on, in their order")

	pool := pgtest.Connect(t, databaseURL)
	var traps, shelved, unpaired int
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT count(*) FROM events WHERE type = 'HoldTrapped'`).Scan(&traps))
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT count(*) FROM events WHERE type = 'BookHeld'`).Scan(&shelved))
	require.NoError(t, pool.QueryRow(t.Context(), `
		SELECT count(*) FROM events t WHERE t.type = 'HoldTrapped' AND NOT EXISTS (
			SELECT 1 FROM events b WHERE b.type = 'BookHeld' AND b.transaction_id = t.transaction_id
			AND b.stream_id = 'book-' || (t.data->>'bookId') AND b.data->>'memberId' = t.data->>'memberId')`).Scan(&unpaired))
	assert.Equal(t, copies, traps, "one trap per copy")
	assert.Equal(t, copies, shelved, "one BookHeld per copy")
	assert.Zero(t, unpaired, "each trap is written with its copy's BookHeld, in one transaction")
}

// Fifty members place holds on one title at once, through two replicas: fifty holds, fifty
// distinct places, in the order the title's stream recorded them.
func TestHTTPFiftyHoldsAtOnceOnTwoReplicas(t *testing.T) {
	t.Parallel()
	const n = 50
	replicas, databaseURL := twoReplicas(t, n)
	a := replicas[0]
	apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles", apitest.Obj{"id": "dune", "title": "Dune", "authors": []string{"Frank Herbert"}}),
		http.StatusCreated, "title-dune")
	apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles/dune/copies", apitest.Obj{"id": "dune-1", "barcode": "B1"}), http.StatusCreated, "book-dune-1")
	apitest.Lend(t, a, "dune-1", "loan-1", "reader")
	var paths, keys []string
	var bodies []apitest.Obj
	for i := range n {
		member := fmt.Sprintf("m%02d", i)
		apitest.SetContact(t, replicas[i%2], member, member, "")
		paths, bodies, keys = append(paths, "/titles/dune/holds"), append(bodies, apitest.Obj{"memberId": member}), append(keys, "h-"+member)
	}

	all(t, replicas, paths, bodies, keys)

	q := apitest.ReadQueue(t, replicas[1], "dune")
	require.Len(t, q.Waiting, n)
	var inQueue []string
	for i, w := range q.Waiting {
		assert.Equal(t, i+1, w.Place, "places are 1 to %d", n)
		inQueue = append(inQueue, w.MemberID)
	}
	pool := pgtest.Connect(t, databaseURL)
	rows, err := pool.Query(t.Context(), `SELECT data->>'memberId' FROM events WHERE stream_id = 'title-dune' AND type = 'TitleHoldPlaced' ORDER BY version`)
	require.NoError(t, err)
	var logged []string
	for rows.Next() {
		var m string
		require.NoError(t, rows.Scan(&m))
		logged = append(logged, m)
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, logged, inQueue, "the queue is the log's order")
	sorted := slices.Clone(inQueue)
	slices.Sort(sorted)
	assert.Len(t, slices.Compact(sorted), n, "fifty distinct members")
}
