package titlesapi_test

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

// Fifty titles with one ISBN, added at once through two replicas on one PostgreSQL database:
// exactly one is added (201), every other is refused 409 TitleAlreadyExists, and the log holds
// one reservation of the ISBN and one TitleAdded. Uniqueness is the log's, not a view's: the
// reservation's stream is written at version 0 in each title's append, so all but one of
// those appends fail on it, are decided again, and find the ISBN taken.
func TestHTTPConcurrentAddsWithOneISBNOnTwoReplicas(t *testing.T) {
	t.Parallel()
	databaseURL := pgtest.NewDatabase(t)
	var replicas []*apitest.API
	for _, name := range []string{"a", "b"} {
		base := apitest.StartService(t, app.Config{DatabaseURL: databaseURL, ReplicaID: name})
		replicas = append(replicas, &apitest.API{Base: base, Store: "postgres"})
	}

	const n = 50
	answers := make([]apitest.Response, n)
	failures := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			body, err := json.Marshal(apitest.Obj{"id": fmt.Sprintf("dune-%d", i), "title": "Dune", "authors": []string{"Frank Herbert"},
				"isbn": "978-0-441-01359-3"})
			if err != nil {
				failures[i] = err
				return
			}
			<-start
			answers[i], failures[i] = replicas[i%2].TrySend(http.MethodPost, "/titles", body)
		})
	}
	close(start)
	wg.Wait()

	added := 0
	for i, r := range answers {
		require.NoError(t, failures[i], "request %d", i)
		if r.Status == http.StatusCreated {
			added++
			apitest.RequireResult(t, r, http.StatusCreated, fmt.Sprintf("title-dune-%d", i))
			continue
		}
		apitest.RequireProblem(t, r, http.StatusConflict, "TitleAlreadyExists")
	}
	assert.Equal(t, 1, added, "one title has the ISBN")

	pool := pgtest.Connect(t, databaseURL)
	var reserved, titlesAdded int
	require.NoError(t, pool.QueryRow(t.Context(),
		`SELECT count(*) FROM events WHERE stream_id = 'reservation-isbn:9780441013593'`).Scan(&reserved))
	require.NoError(t, pool.QueryRow(t.Context(), `SELECT count(*) FROM events WHERE type = 'TitleAdded'`).Scan(&titlesAdded))
	assert.Equal(t, 1, reserved, "one reservation in the log")
	assert.Equal(t, 1, titlesAdded, "one title in the log")
}
