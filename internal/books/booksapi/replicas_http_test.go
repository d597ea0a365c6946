package booksapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
)

// Fifty copies of one title with one barcode, added at once through two replicas on one
// PostgreSQL database: exactly one is added (201), every other is refused 409 BarcodeTaken, and
// the log holds one reservation of the barcode, one BookAdded and one CopyAdded. Uniqueness is
// the log's, not a view's: the barcode's reservation stream is written at version 0 in each
// copy's append, with the copy's BookAdded and its title's CopyAdded, so all but one of those
// appends fail, are decided again, and find the barcode taken.
func TestHTTPConcurrentCopiesWithOneBarcodeOnTwoReplicas(t *testing.T) {
	t.Parallel()
	databaseURL := pgtest.NewDatabase(t)
	var replicas []*apitest.API
	for _, name := range []string{"a", "b"} {
		base := apitest.StartService(t, app.Config{DatabaseURL: databaseURL, ReplicaID: name})
		replicas = append(replicas, &apitest.API{Base: base, Store: "postgres"})
	}
	apitest.RequireResult(t, replicas[0].Call(t, http.MethodPost, "/titles", apitest.Obj{"id": "dune", "title": "Dune", "authors": []string{"Frank Herbert"}}),
		http.StatusCreated, "title-dune")

	const n = 50
	answers := make([]apitest.Response, n)
	failures := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			body, err := json.Marshal(apitest.Obj{"id": fmt.Sprintf("dune-%d", i), "barcode": "31234000000017"})
			if err != nil {
				failures[i] = err
				return
			}
			<-start
			answers[i], failures[i] = replicas[i%2].TrySend(http.MethodPost, "/titles/dune/copies", body)
		})
	}
	close(start)
	wg.Wait()

	added := ""
	for i, r := range answers {
		require.NoError(t, failures[i], "request %d", i)
		if r.Status == http.StatusCreated {
			require.Empty(t, added, "one copy has the barcode, not %s and %d", added, i)
			added = fmt.Sprintf("dune-%d", i)
			apitest.RequireResult(t, r, http.StatusCreated, "book-"+added)
			continue
		}
		apitest.RequireProblem(t, r, http.StatusConflict, "BarcodeTaken")
	}
	require.NotEmpty(t, added, "one copy has the barcode")

	pool := pgtest.Connect(t, databaseURL)
	var reserved, booksAdded, copiesAdded int
	require.NoError(t, pool.QueryRow(t.Context(),
		`SELECT count(*) FROM events WHERE stream_id = 'reservation-barcode:31234000000017'`).Scan(&reserved))
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT count(*) FROM events WHERE type = 'BookAdded'`).Scan(&booksAdded))
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT count(*) FROM events WHERE type = 'CopyAdded'`).Scan(&copiesAdded))
	assert.Equal(t, 1, reserved, "one reservation in the log")
	assert.Equal(t, 1, booksAdded, "one copy in the log")
	assert.Equal(t, 1, copiesAdded, "the title lists one copy")
	var found apitest.Book
	apitest.RequireJSON(t, replicas[1].Get(t, "/books?barcode=31234000000017"), &found)
	assert.Equal(t, added, found.ID)
}
