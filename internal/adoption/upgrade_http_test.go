package adoption_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/eventstore/pgstore"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
)

// titleView is what this test reads of GET /titles/{titleId}.
type titleView struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Authors []string `json:"authors"`
	Copies  []struct {
		ID      string  `json:"id"`
		Barcode *string `json:"barcode"`
		Status  string  `json:"status"`
	} `json:"copies"`
	Counts struct {
		Total     int `json:"total"`
		Available int `json:"available"`
	} `json:"counts"`
}

// The upgrade: a log written by the release before titles (books as {id, title, author}, a
// loan) is served by this one with no manual step. Its books read as copies; the adoption saga
// gives each title its record and its copies, the books alike sharing one title; GET
// /titles/{titleId} answers them; a replay of the saga records nothing; and a book added
// through POST /books now joins the title adopted for the books like it.
func TestUpgradeAdoptsTheBooksOfTheReleaseBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	databaseURL := pgtest.NewDatabase(t)
	pool := pgtest.Connect(t, databaseURL)
	store := pgstore.New(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(store.Close)
	write := func(streamID string, version int64, typ string, data any) {
		t.Helper()
		b, err := json.Marshal(data)
		require.NoError(t, err)
		_, err = store.Append(ctx, streamID, version, []eventstore.NewEvent{{Type: typ, Data: b,
			Metadata: eventstore.Metadata{CommandID: "before:" + streamID, Command: "addBook"}}})
		require.NoError(t, err)
	}
	for _, b := range []struct{ id, title, author string }{
		{"dune-1", "Dune", "Frank Herbert"}, {"dune-2", "DUNE", "frank herbert"}, {"emma", "Emma", "Jane Austen"},
		{"dune-3", "Dune.", "Frank  Herbert"}, {"emile", "Émile, ou De l'éducation", "Jean-Jacques Rousseau"},
	} {
		write("book-"+b.id, 0, "BookAdded", map[string]string{"id": b.id, "title": b.title, "author": b.author})
	}
	write("book-dune-2", 1, "BookLent", map[string]any{"loanId": "loan-1", "memberId": "alice",
		"lentAt": "2026-11-20T09:00:00Z", "dueAt": "2026-12-04T09:00:00Z"})
	write("book-dune-3", 1, "BookLent", map[string]any{"loanId": "loan-3", "memberId": "bob",
		"lentAt": "2026-11-20T09:00:00Z", "dueAt": "2036-12-04T09:00:00Z"})
	// Holds on a copy, as the release before kept them in the copy's stream: carol and dan wait
	// for dune-2, while dune-1 is on the shelf; emma is held for erin on the hold shelf.
	write("book-dune-2", 2, "HoldPlaced", map[string]any{"memberId": "carol"})
	write("book-dune-2", 3, "HoldPlaced", map[string]any{"memberId": "dan"})
	write("book-emma", 1, "BookHeld", map[string]any{"memberId": "erin", "until": "2036-12-04T09:00:00Z"})

	a := apitest.Launch(t, apitest.FastBackground(app.Config{DatabaseURL: databaseURL}), apitest.ServiceLogger(t, app.Config{})).API("postgres")
	// The saga reads the log from its start: each book adopted in an append across its stream
	// and its title's, which takes a while under the race detector on a busy machine.
	apitest.Eventually(t, 30*time.Second, func() bool { return apitest.ProcessorStatus(t, a, "adoption").Lag == 0 }, "the adoption saga to catch up")

	dune := books.TitleIDOf("Dune", "Frank Herbert")
	got := getTitle(t, a, dune)
	assert.Equal(t, "Dune", got.Title)
	assert.Equal(t, []string{"Frank Herbert"}, got.Authors)
	require.Len(t, got.Copies, 3)
	for i, id := range []string{"dune-1", "dune-2", "dune-3"} {
		assert.Equal(t, id, got.Copies[i].ID)
		assert.Nil(t, got.Copies[i].Barcode)
	}
	assert.Equal(t, "held", got.Copies[0].Status, "dune-1, on the shelf, is held for carol: she wanted the book, not dune-2")
	assert.Equal(t, "lent", got.Copies[1].Status, "the copies' loans are as the log holds them")
	assert.Equal(t, 3, got.Counts.Total)
	assert.Equal(t, 0, got.Counts.Available)
	for id, book := range map[string][2]string{"emma": {"Emma", "Jane Austen"}, "emile": {"Émile, ou De l'éducation", "Jean-Jacques Rousseau"}} {
		got := getTitle(t, a, books.TitleIDOf(book[0], book[1]))
		assert.Equal(t, []string{book[1]}, got.Authors)
		require.Len(t, got.Copies, 1)
		assert.Equal(t, id, got.Copies[0].ID)
	}
	titleEvents := func() (added, copies, other int) {
		t.Helper()
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE type = 'TitleAdded'), count(*) FILTER (WHERE type = 'CopyAdded'),
			count(*) FILTER (WHERE type NOT IN ('TitleAdded', 'CopyAdded')) FROM events WHERE stream_id LIKE 'title-%'`).Scan(&added, &copies, &other))
		return added, copies, other
	}
	added, copies, other := titleEvents()
	assert.Equal(t, [3]int{3, 5, 6}, [3]int{added, copies, other}, "three titles, five copies, where three of them are, two holds, one filled")
	assertAdoptedHolds(t, a, dune, books.TitleIDOf("Emma", "Jane Austen"))

	require.Equal(t, http.StatusAccepted, apitest.Admin(t, a, "adoption", "replay").Status)
	apitest.Eventually(t, 10*time.Second, func() bool {
		s := apitest.ProcessorStatus(t, a, "adoption")
		return s.Generation == 1 && s.Lag == 0
	}, "the saga to be run again")
	added, copies, other = titleEvents()
	assert.Equal(t, [3]int{3, 5, 6}, [3]int{added, copies, other}, "a replay records nothing")
	fillsTheAdoptedHoldFirst(t, a, dune)

	apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": "dune-4", "title": "Dune", "author": "Frank Herbert"}),
		http.StatusCreated, "book-dune-4")
	assert.Len(t, getTitle(t, a, dune).Copies, 4, "a book added now joins the title adopted for the books like it")
	assert.Equal(t, 0, apitest.ProcessorStatus(t, a, "adoption").Parked)
}

// assertAdoptedHolds checks that the holds of the release before are the titles' now: dune-1,
// on the shelf, was held for carol, first in line, as the title took her hold over, and dan
// waits; emma is held for erin, as it was, with no second BookHeld (no second pickup email).
func assertAdoptedHolds(t *testing.T, a *apitest.API, dune, emma string) {
	t.Helper()
	q := apitest.ReadQueue(t, a, dune)
	require.Len(t, q.Waiting, 1)
	assert.Equal(t, "dan", q.Waiting[0].MemberID)
	require.Len(t, q.Ready, 1)
	assert.Equal(t, [2]string{"carol", "dune-1"}, [2]string{q.Ready[0].MemberID, q.Ready[0].BookID})
	q = apitest.ReadQueue(t, a, emma)
	require.Len(t, q.Ready, 1)
	assert.Equal(t, [2]string{"erin", "emma"}, [2]string{q.Ready[0].MemberID, q.Ready[0].BookID})
}

// fillsTheAdoptedHoldFirst places a hold on Dune now, behind dan's, taken over from the release
// before, and has the next copy that comes back held for dan, whatever copy it is.
func fillsTheAdoptedHoldFirst(t *testing.T, a *apitest.API, dune string) {
	t.Helper()
	apitest.SetContact(t, a, "fay", "Fay", "")
	apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles/"+dune+"/holds", apitest.Obj{"memberId": "fay"}, "Idempotency-Key", "fay"),
		http.StatusCreated, "title-"+dune)
	back := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune-3/returns", apitest.Obj{"loanId": "loan-3"}), http.StatusCreated, "book-dune-3")
	require.Len(t, back.Events, 2)
	assert.Equal(t, "BookHeld", back.Events[1].Type)
	assert.JSONEq(t, `"dan"`, member(t, back.Events[1].Data, "memberId"), "the hold taken over is filled first, by any copy")
	q := apitest.ReadQueue(t, a, dune)
	require.Len(t, q.Waiting, 1)
	assert.Equal(t, "fay", q.Waiting[0].MemberID)
}

func getTitle(t *testing.T, a *apitest.API, titleID string) titleView {
	t.Helper()
	r := a.Get(t, "/titles/"+titleID)
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	var v titleView
	require.NoError(t, json.Unmarshal(r.Body, &v))
	return v
}

// member is a member of a JSON object, as JSON.
func member(t *testing.T, data json.RawMessage, member string) string {
	t.Helper()
	var o map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &o))
	return string(o[member])
}
