package catalog_test

// GET /titles on both stores: the answer's shape, the counts as GET /titles/{titleId} counts
// them, the search by words and by ISBN, available, pages and minPosition; 400 for every
// parameter out of the contract. Every answer is also checked against the OpenAPI document.

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// titleList is the answer of GET /titles.
type titleList struct {
	Titles []struct {
		ID        string        `json:"id"`
		Title     string        `json:"title"`
		Authors   []string      `json:"authors"`
		ISBN      *string       `json:"isbn"`
		Year      *int          `json:"year"`
		Publisher *string       `json:"publisher"`
		Language  *string       `json:"language"`
		Subjects  []string      `json:"subjects"`
		Counts    apiTitleCount `json:"counts"`
	} `json:"titles"`
	Position int64   `json:"position"`
	Next     *string `json:"next"`
}

// apiTitleCount is a title's counts, as GET /titles and GET /titles/{titleId} show them.
type apiTitleCount struct {
	Total        int `json:"total"`
	Available    int `json:"available"`
	HoldsWaiting int `json:"holdsWaiting"`
}

func (l titleList) ids() []string {
	ids := []string{}
	for _, t := range l.Titles {
		ids = append(ids, t.ID)
	}
	return ids
}

// getTitles asks GET /titles with the query and wants a list.
func getTitles(t *testing.T, a *apitest.API, query url.Values) titleList {
	t.Helper()
	r := a.Get(t, "/titles?"+query.Encode())
	require.Equal(t, http.StatusOK, r.Status, "GET /titles?%s: %s", query.Encode(), r.Body)
	apitest.RequireKeys(t, r.Body, "titles", "position", "next")
	var l titleList
	apitest.RequireJSON(t, r, &l)
	return l
}

// titlesAnswered waits until GET /titles answers: on a fresh database, once this release's
// build of the catalog has replaced the migrations' first one, which keeps no titles (until
// then, 503 NotCaughtUp).
func titlesAnswered(t *testing.T, a *apitest.API) {
	t.Helper()
	apitest.Eventually(t, 30*time.Second, func() bool {
		r := a.Get(t, "/titles")
		if r.Status != http.StatusOK {
			apitest.RequireProblem(t, r, http.StatusServiceUnavailable, "NotCaughtUp")
		}
		return r.Status == http.StatusOK
	}, "GET /titles to answer")
}

// countsOf is GET /titles/{titleId}'s counts.
func countsOf(t *testing.T, a *apitest.API, titleID string) apiTitleCount {
	t.Helper()
	var title struct {
		Counts apiTitleCount `json:"counts"`
	}
	r := a.Get(t, "/titles/"+titleID)
	require.Equal(t, http.StatusOK, r.Status, "GET /titles/%s: %s", titleID, r.Body)
	require.NoError(t, json.Unmarshal(r.Body, &title))
	return title.Counts
}

// call sends a command and wants its 201, returning its position.
func call(t *testing.T, a *apitest.API, method, path string, body apitest.Obj, headers ...string) int64 {
	t.Helper()
	r := a.Call(t, method, path, body, headers...)
	require.Equal(t, http.StatusCreated, r.Status, "%s %s: %s", method, path, r.Body)
	var res apitest.Result
	require.NoError(t, json.Unmarshal(r.Body, &res))
	return res.Position
}

// A library of three titles: dune, with two copies lent and bob waiting; its sequel, with none;
// emma, with one on the shelf.
func titledLibrary(t *testing.T, a *apitest.API) int64 {
	t.Helper()
	call(t, a, http.MethodPost, "/titles", apitest.Obj{"id": "dune", "title": "Dune", "authors": []string{"Frank Herbert"},
		"isbn": "0-441-01359-7", "year": 1965, "publisher": "Chilton Books", "language": "eng", "subjects": []string{"Science fiction", "Deserts"}})
	call(t, a, http.MethodPost, "/titles", apitest.Obj{"id": "messiah", "title": "Dune Messiah", "authors": []string{"Frank Herbert"}})
	call(t, a, http.MethodPost, "/titles", apitest.Obj{"id": "emma", "title": "emma", "authors": []string{"Jane Austen"}, "isbn": "9780141439587"})
	for _, c := range []struct{ title, copy string }{{"dune", "dune-1"}, {"dune", "dune-2"}, {"emma", "emma-1"}} {
		call(t, a, http.MethodPost, "/titles/"+c.title+"/copies", apitest.Obj{"id": c.copy, "barcode": "B-" + c.copy})
	}
	call(t, a, http.MethodPost, "/books/dune-1/loans", apitest.Obj{"loanId": "l1", "memberId": "alice"})
	call(t, a, http.MethodPost, "/books/dune-2/loans", apitest.Obj{"loanId": "l2", "memberId": "carol"})
	call(t, a, http.MethodPut, "/accounts/bob", apitest.Obj{"name": "Bob"})
	return call(t, a, http.MethodPost, "/titles/dune/holds", apitest.Obj{"memberId": "bob"}, "Idempotency-Key", "bob-waits")
}

// GET /titles: the titles in the order of their titles in lower case, each record with null for
// what it lacks, the counts GET /titles/{titleId} shows, the position, and next.
func TestHTTPTitles(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, apitest.FastBackground(app.Config{Tuning: app.Tuning{CatalogWait: 3 * time.Second}}), func(t *testing.T, a *apitest.API) {
		titlesAnswered(t, a)
		last := titledLibrary(t, a)
		at := url.Values{"minPosition": {fmt.Sprint(last)}}
		r := a.Get(t, "/titles?"+at.Encode())
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		l := getTitles(t, a, at)
		require.GreaterOrEqual(t, l.Position, last)
		require.Nil(t, l.Next)
		require.Equal(t, []string{"dune", "messiah", "emma"}, l.ids())
		assert.JSONEq(t, `{"id":"dune","title":"Dune","authors":["Frank Herbert"],"isbn":"9780441013593","year":1965,
			"publisher":"Chilton Books","language":"en","subjects":["Science fiction","Deserts"],
			"counts":{"total":2,"available":0,"holdsWaiting":1}}`, string(apitest.MustJSON(t, l.Titles[0])))
		assert.JSONEq(t, `{"id":"messiah","title":"Dune Messiah","authors":["Frank Herbert"],"isbn":null,"year":null,
			"publisher":null,"language":null,"subjects":[],"counts":{"total":0,"available":0,"holdsWaiting":0}}`,
			string(apitest.MustJSON(t, l.Titles[1])))
		for _, title := range l.Titles {
			assert.Equal(t, countsOf(t, a, title.ID), title.Counts, "%s: the counts GET /titles/{titleId} shows", title.ID)
		}

		for q, want := range map[string][]string{
			"dune":              {"dune", "messiah"},
			"HERBERT  desert":   {"dune"},
			"austen":            {"emma"},
			"0-441-01359-7":     {"dune"},
			"978 0 441 01359 3": {"dune"},
			"0141439580":        {"emma"},
			"dune austen":       {},
		} {
			assert.Equal(t, want, getTitles(t, a, url.Values{"q": {q}}).ids(), "q %q", q)
		}
		assert.Equal(t, []string{"emma"}, getTitles(t, a, url.Values{"available": {"true"}}).ids())
		assert.Equal(t, []string{}, getTitles(t, a, url.Values{"available": {"true"}, "q": {"dune"}}).ids())

		var paged []string
		query := url.Values{"limit": {"1"}}
		for range 4 {
			p := getTitles(t, a, query)
			paged = append(paged, p.ids()...)
			if p.Next == nil {
				break
			}
			query.Set("after", *p.Next)
		}
		assert.Equal(t, []string{"dune", "messiah", "emma"}, paged, "a title a page, each once")
	})
}

// Every parameter out of the contract is 400 InvalidRequest, naming it, before any wait.
func TestHTTPTitlesRefusesBadParameters(t *testing.T) {
	t.Parallel()
	bookCursor := base64.RawURLEncoding.EncodeToString([]byte{1, 'd', 'u', 'n', 'e'})
	overlong := base64.RawURLEncoding.EncodeToString(binary.AppendUvarint([]byte{2}, 1<<20))
	apitest.ForEachStore(t, apitest.FastBackground(app.Config{}), func(t *testing.T, a *apitest.API) {
		titlesAnswered(t, a)
		for raw, names := range map[string]string{
			"status=lent":         "unknown query parameter",
			"q=a&q=b":             "q may be given once",
			"available=yes":       "available",
			"available=false":     "available",
			"available=TRUE":      "available",
			"limit=0":             "limit",
			"limit=1001":          "limit",
			"limit=%2B5":          "limit",
			"limit=ten":           "limit",
			"after=not-a-cursor":  "after",
			"after=" + bookCursor: "after",
			"after=" + overlong:   "after",
			"q=" + url.QueryEscape(strings.Repeat("é", 201)): "q",
			"q=" + url.QueryEscape("a b c d e f g h i j k"):  "q",
			"q=dune%09frank":       "q",
			"q=dune%FF":            "q",
			"minPosition=-1":       "minPosition",
			"minPosition=one":      "minPosition",
			"minPosition=99999999": "minPosition",
			"q=%zz":                "query string",
		} {
			p := apitest.RequireProblem(t, a.Get(t, "/titles?"+raw), http.StatusBadRequest, "InvalidRequest")
			assert.Contains(t, p.Detail, names, raw)
		}
	})
}
