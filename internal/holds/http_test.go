package holds_test

// GET /holds and GET /accounts/{memberId}/holds, served as the service serves them (its router,
// its rules with sign-in off) from a view of each store that the books' commands fill: the
// answers' shapes, the filters, the pages and bad input. Every answer is also checked against
// the OpenAPI document. Who may call them, with sign-in, is service_http_test.go's.

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/holds/holdshttp"
	"library/internal/httpapi"
	"library/internal/testkit/apitest"
)

// serve serves the view's routes through the service's router, for the test's life.
func (w *world) serve(t *testing.T) *apitest.API {
	srv := httptest.NewServer(httpapi.New(httpapi.Options{}, holdshttp.Routes{View: w.view}))
	t.Cleanup(srv.Close)
	return &apitest.API{Base: srv.URL}
}

// shownHold is a hold as both routes show it.
type shownHold struct {
	BookID   string  `json:"bookId"`
	Title    string  `json:"title"`
	MemberID string  `json:"memberId"`
	Status   string  `json:"status"`
	Place    *int    `json:"place"`
	PlacedAt string  `json:"placedAt"`
	Until    *string `json:"until"`
}

// holdList is the answer of GET /holds.
type holdList struct {
	Holds    []shownHold `json:"holds"`
	Next     *string     `json:"next"`
	Position int64       `json:"position"`
}

// memberHolds is the answer of GET /accounts/{memberId}/holds.
type memberHolds struct {
	MemberID string      `json:"memberId"`
	Holds    []shownHold `json:"holds"`
	More     bool        `json:"more"`
	Position int64       `json:"position"`
}

// listHolds asks GET /holds with the query and wants a page.
func listHolds(t *testing.T, a *apitest.API, query url.Values, headers ...string) holdList {
	t.Helper()
	r := a.Send(t, http.MethodGet, "/holds?"+query.Encode(), nil, headers...)
	apitest.RequireKeys(t, r.Body, "holds", "next", "position")
	var l holdList
	apitest.RequireJSON(t, r, &l)
	for _, h := range l.Holds {
		apitest.RequireKeys(t, mustJSON(t, h), "bookId", "title", "memberId", "status", "place", "placedAt", "until")
	}
	return l
}

// holdsOf asks GET /accounts/{memberID}/holds and wants the member's holds.
func holdsOf(t *testing.T, a *apitest.API, memberID string, headers ...string) memberHolds {
	t.Helper()
	r := a.Send(t, http.MethodGet, "/accounts/"+memberID+"/holds", nil, headers...)
	apitest.RequireKeys(t, r.Body, "memberId", "holds", "more", "position")
	var l memberHolds
	apitest.RequireJSON(t, r, &l)
	require.Equal(t, memberID, l.MemberID)
	return l
}

func mustJSON(t *testing.T, v any) []byte { return apitest.MustJSON(t, v) }

func place(n int) *int { return &n }

func rfc3339(t time.Time) *string {
	s := t.Format(time.RFC3339Nano)
	return &s
}

// The routes show what the view holds: a waiting hold with its place and a null until, a ready
// one with its until and a null place; the filters; a member's own list; the position.
func TestHTTPHolds(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		a := w.serve(t)
		w.add(t, "dune", "Dune")
		w.add(t, "emma", "Emma")
		w.lend(t, "dune", "l1", "zed")
		w.lend(t, "emma", "l2", "zed")
		w.place(t, "dune", "alice", "bob")
		w.place(t, "emma", "bob")
		w.giveBack(t, "dune", "l1")
		until := w.untilOf()
		w.catchUp(t)

		at := func(book, member string) string { return w.placedAt(t, book, member).Format(time.RFC3339Nano) }
		aliceDune := shownHold{BookID: "dune", Title: "Dune", MemberID: "alice", Status: "ready", PlacedAt: at("dune", "alice"), Until: rfc3339(until)}
		bobDune := shownHold{BookID: "dune", Title: "Dune", MemberID: "bob", Status: "waiting", Place: place(1), PlacedAt: at("dune", "bob")}
		bobEmma := shownHold{BookID: "emma", Title: "Emma", MemberID: "bob", Status: "waiting", Place: place(1), PlacedAt: at("emma", "bob")}

		all := listHolds(t, a, nil)
		assert.Equal(t, []shownHold{aliceDune, bobDune, bobEmma}, all.Holds)
		assert.Nil(t, all.Next)
		assert.Equal(t, w.pos.Checkpoint.Position, all.Position)
		assert.Equal(t, []shownHold{aliceDune}, listHolds(t, a, url.Values{"status": {"ready"}}).Holds)
		assert.Equal(t, []shownHold{bobDune, bobEmma}, listHolds(t, a, url.Values{"status": {"waiting"}}).Holds)
		assert.Equal(t, []shownHold{bobEmma}, listHolds(t, a, url.Values{"bookId": {"emma"}}).Holds)
		assert.Empty(t, listHolds(t, a, url.Values{"bookId": {"ulysses"}}).Holds)

		bobs := holdsOf(t, a, "bob")
		assert.Equal(t, []shownHold{bobDune, bobEmma}, bobs.Holds)
		assert.False(t, bobs.More)
		assert.Equal(t, w.pos.Checkpoint.Position, bobs.Position)
		assert.Equal(t, []shownHold{aliceDune}, holdsOf(t, a, "alice").Holds)
		assert.Empty(t, holdsOf(t, a, "carol").Holds, "a member with no hold")

		// Pages of one, through next, as a client reads them.
		var paged []shownHold
		query := url.Values{"limit": {"1"}}
		for range 10 {
			p := listHolds(t, a, query)
			paged = append(paged, p.Holds...)
			if p.Next == nil {
				break
			}
			query.Set("cursor", *p.Next)
		}
		assert.Equal(t, all.Holds, paged)
	})
}

// Anything out of the contract is 400 InvalidRequest, never a 500: unknown or repeated
// parameters, bad values, cursors the service did not make, and a cursor of one order sent for
// the other.
func TestHTTPHoldsBadInput(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		a := w.serve(t)
		w.add(t, "dune", "Dune")
		w.lend(t, "dune", "l1", "zed")
		w.place(t, "dune", "alice", "bob")
		w.giveBack(t, "dune", "l1")
		w.add(t, "emma", "Emma")
		w.lend(t, "emma", "l2", "zed")
		w.place(t, "emma", "carol", "dave")
		w.giveBack(t, "emma", "l2")
		w.catchUp(t)
		queueNext := listHolds(t, a, url.Values{"limit": {"1"}}).Next
		shelfNext := listHolds(t, a, url.Values{"limit": {"1"}, "status": {"ready"}}).Next
		require.NotNil(t, queueNext)
		require.NotNil(t, shelfNext)

		for _, query := range []string{
			"limit=0", "limit=1001", "limit=-1", "limit=1e2", "limit=+5", "limit=%205", "limit=x",
			"status=lent", "status=READY", "status=held", "status=waiting,ready",
			"bookId=-x", "bookId=a%20b", "bookId=" + strings.Repeat("b", 129),
			"cursor=x", "cursor=" + strings.Repeat("A", 400), "cursor=AXEAAAAAAAAAAA", "cursor=AXEAAAAAAAAAA2R1bmU=",
			"cursor=AXgAAAAAAAAAA2R1bmU", "cursor=AnEAAAAAAAAAA2R1bmU", "cursor=AXEAAAAAAAAAAC0tLQ",
			"cursor=" + *shelfNext, "cursor=" + *shelfNext + "&status=waiting", "cursor=" + *queueNext + "&status=ready",
			"memberId=alice", "overdue=true", "after=x", "limit=5&limit=6", "status=ready&status=ready", "limit=%zz", "limit=1;status=ready",
		} {
			apitest.RequireProblem(t, a.Get(t, "/holds?"+query), http.StatusBadRequest, "InvalidRequest")
		}
		for _, path := range []string{"/accounts/-x/holds", "/accounts/me/holds", "/accounts/a%2Fb/holds", "/accounts/alice/holds?limit=5",
			"/accounts/alice/holds?x"} {
			apitest.RequireProblem(t, a.Get(t, path), http.StatusBadRequest, "InvalidRequest")
		}
		// An empty parameter counts as left out; the example cursor of the document is one; each
		// next goes with its own status.
		assert.Len(t, listHolds(t, a, url.Values{"limit": {""}, "status": {""}, "bookId": {""}, "cursor": {""}}).Holds, 4)
		listHolds(t, a, url.Values{"cursor": {"AXEAAAAAAAAAA2R1bmU"}})
		assert.Len(t, listHolds(t, a, url.Values{"cursor": {*queueNext}, "status": {"waiting"}}).Holds, 2)
		assert.Len(t, listHolds(t, a, url.Values{"cursor": {*shelfNext}, "status": {"ready"}}).Holds, 1)
	})
}
