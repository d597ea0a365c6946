package catalog_test

// GET /books a page at a time, and its search, on both stores: limit, after and next, q, with
// status and minPosition. Every answer is also checked against the OpenAPI document.

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
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

// bookPage is the answer of GET /books.
type bookPage struct {
	Books []struct {
		ID      string        `json:"id"`
		Title   string        `json:"title"`
		Author  string        `json:"author"`
		Status  string        `json:"status"`
		Loan    *apitest.Loan `json:"loan"`
		Version int64         `json:"version"`
	} `json:"books"`
	Position int64   `json:"position"`
	Next     *string `json:"next"`
}

func (p bookPage) ids() []string {
	var ids []string
	for _, b := range p.Books {
		ids = append(ids, b.ID)
	}
	return ids
}

// listBooks asks GET /books with the query and wants a page, whose members it checks.
func listBooks(t *testing.T, a *apitest.API, query url.Values) bookPage {
	t.Helper()
	r := a.Get(t, "/books?"+query.Encode())
	apitest.RequireKeys(t, r.Body, "books", "position", "next")
	var p bookPage
	apitest.RequireJSON(t, r, &p)
	return p
}

// readAllPages reads every page of a query, following next, and returns the ids in the order
// read. Every page but the last is full and has a next; no page after the first is empty.
func readAllPages(t *testing.T, a *apitest.API, query url.Values, limit int) []string {
	t.Helper()
	query.Set("limit", fmt.Sprint(limit))
	var ids []string
	for pages := 1; ; pages++ {
		p := listBooks(t, a, query)
		if pages > 1 {
			require.NotEmpty(t, p.Books, "a page after a next")
		}
		ids = append(ids, p.ids()...)
		if p.Next == nil {
			return ids
		}
		require.Len(t, p.Books, limit, "a page with a next is full")
		require.NotEmpty(t, *p.Next)
		query.Set("after", *p.Next)
		require.Less(t, pages, 1000, "paging does not end")
	}
}

// addNamedBook adds a book with the given title and author and returns the result.
func addNamedBook(t *testing.T, a *apitest.API, id, title, author string) apitest.Result {
	t.Helper()
	r := a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": id, "title": title, "author": author})
	return apitest.RequireResult(t, r, http.StatusCreated, "book-"+id)
}

// cursor makes a cursor as the service does, for tests that forge one.
func cursor(version byte, id string) string {
	return base64.RawURLEncoding.EncodeToString(append([]byte{version}, id...))
}

// Paging: 100 books by default, at most 1000, every book once in id order whatever the page
// size, next null on the last page (also on one that ends at the last book), and minPosition
// with every page.
func TestHTTPCatalogPages(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, apitest.FastBackground(app.Config{Tuning: app.Tuning{CatalogWait: 2 * time.Second}}), func(t *testing.T, a *apitest.API) {
		const n = 123
		var ids []string
		for i := range n {
			ids = append(ids, fmt.Sprintf("p%03d", i))
		}
		var last apitest.Result
		for _, i := range rand.Perm(n) {
			last = addNamedBook(t, a, ids[i], "Book "+ids[i], "Author")
		}
		afterAll := url.Values{"minPosition": {fmt.Sprint(last.Position)}}

		t.Run("100 by default", func(t *testing.T) {
			p := listBooks(t, a, afterAll)
			assert.Equal(t, ids[:100], p.ids())
			assert.GreaterOrEqual(t, p.Position, last.Position)
			require.NotNil(t, p.Next)
			p = listBooks(t, a, url.Values{"limit": {""}}) // empty is left out
			assert.Len(t, p.Books, 100)
		})
		t.Run("every book once, in id order, with minPosition on every page", func(t *testing.T) {
			for _, limit := range []int{1, 7, 50, n - 1, n, n + 1, 1000} {
				query := url.Values{"minPosition": {fmt.Sprint(last.Position)}}
				assert.Equal(t, ids, readAllPages(t, a, query, limit), "limit %d", limit)
			}
		})
		t.Run("next is null on the last page", func(t *testing.T) {
			p := listBooks(t, a, url.Values{"limit": {"3"}, "after": {cursor(1, ids[n-4])}})
			assert.Equal(t, ids[n-3:], p.ids())
			assert.Nil(t, p.Next, "the page ends at the last book")
			p = listBooks(t, a, url.Values{"after": {cursor(1, ids[n-1])}})
			assert.Empty(t, p.ids())
			assert.Nil(t, p.Next)
			assert.Contains(t, string(a.Get(t, "/books?limit=1000").Body), `"next":null`)
		})
		t.Run("a cursor is a place in the id order", func(t *testing.T) {
			p := listBooks(t, a, url.Values{"limit": {"2"}, "after": {cursor(1, "p050x")}})
			assert.Equal(t, []string{"p051", "p052"}, p.ids())
		})
		t.Run("400 for a limit out of range or not in digits", func(t *testing.T) {
			for _, limit := range []string{"0", "1001", "-1", "+5", " 5", "5 ", "1.5", "1e3", "0x10", "ten", "99999999999999999999"} {
				r := a.Get(t, "/books?"+url.Values{"limit": {limit}}.Encode())
				apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
			}
		})
		t.Run("400 for an after the service did not make", func(t *testing.T) {
			next := *listBooks(t, a, url.Values{"limit": {"2"}}).Next
			raw, err := base64.RawURLEncoding.DecodeString(next)
			require.NoError(t, err)
			require.Equal(t, next, cursor(raw[0], string(raw[1:])), "the form the tests forge")
			// The last character of next carries bits that the decoding ignores: set one.
			const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
			lastChar := strings.IndexByte(alphabet, next[len(next)-1])
			for name, after := range map[string]string{
				"not base64url":         "!!",
				"standard base64":       "AXAw+/8",
				"padded":                next + "==",
				"a character more":      next + "A",
				"unused bits set":       next[:len(next)-1] + string(alphabet[lastChar|1]),
				"version 2":             cursor(2, string(raw[1:])),
				"version 0":             cursor(0, string(raw[1:])),
				"no id":                 cursor(1, ""),
				"an id with a space":    cursor(1, "p0 1"),
				"an id starting with -": cursor(1, "-p001"),
				"an id of 129":          cursor(1, strings.Repeat("p", 129)),
				"a book id":             "p001",
				"very long":             strings.Repeat("A", 10_000),
			} {
				t.Run(name, func(t *testing.T) {
					r := a.Get(t, "/books?"+url.Values{"after": {after}}.Encode())
					apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
				})
			}
			// Bad input is refused at once, not after waiting for a position.
			r := a.Get(t, fmt.Sprintf("/books?after=%%21&minPosition=%d", last.Position+1000))
			apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
		})
		t.Run("400 for a parameter given twice", func(t *testing.T) {
			for _, q := range []string{"limit=1&limit=2", "limit=1&limit=1", "after=AXAwMDE&after=AXAwMDE", "q=a&q=b", "q=&q="} {
				apitest.RequireProblem(t, a.Get(t, "/books?"+q), http.StatusBadRequest, "InvalidRequest")
			}
		})
		t.Run("400 for a minPosition past the log, with a page asked for", func(t *testing.T) {
			r := a.Get(t, fmt.Sprintf("/books?limit=1&after=%s&q=book&minPosition=%d", cursor(1, ids[0]), last.Position+1000))
			apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
		})
	})
}

// q on both stores: every word, in title or author, any case, literally, with status, over
// pages and with minPosition; 400 for a q out of the contract.
func TestHTTPCatalogSearchQuery(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, apitest.FastBackground(app.Config{Tuning: app.Tuning{CatalogWait: 3 * time.Second}}), func(t *testing.T, a *apitest.API) {
		addNamedBook(t, a, "dune", "Dune", "Frank Herbert")
		addNamedBook(t, a, "emile", "Émile Zola", "ÉDITIONS DU SEUIL")
		addNamedBook(t, a, "frankenstein", "Frankenstein", "Mary Shelley")
		addNamedBook(t, a, "messiah", "Dune Messiah", "Frank Herbert")
		addNamedBook(t, a, "pure", "100% Pure", "Percy")
		addNamedBook(t, a, "pure-not", "1000 Pure", "Percy")
		addNamedBook(t, a, "snake", "snake_case", "Underscore")
		addNamedBook(t, a, "snake-not", "snakeXcase", "Underscore")
		lent := apitest.Lend(t, a, "dune", "loan-1", "alice")
		search := func(t *testing.T, query url.Values) []string {
			t.Helper()
			query.Set("minPosition", fmt.Sprint(lent.Position))
			return listBooks(t, a, query).ids()
		}

		for q, want := range map[string][]string{
			"dune":           {"dune", "messiah"},
			"DUNE":           {"dune", "messiah"},
			"FRANK  dune":    {"dune", "messiah"},
			"herbert frank":  {"dune", "messiah"},
			"frank":          {"dune", "frankenstein", "messiah"},
			"dune shelley":   nil,
			"zolaéditions":   nil, // not across title and author
			"ÉMILE éditions": {"emile"},
			"100%":           {"pure"},
			"%":              {"pure"},
			"e_c":            {"snake"},
			"_":              {"snake"},
			"":               {"dune", "emile", "frankenstein", "messiah", "pure", "pure-not", "snake", "snake-not"},
			"   ":            {"dune", "emile", "frankenstein", "messiah", "pure", "pure-not", "snake", "snake-not"},
		} {
			assert.Equal(t, want, search(t, url.Values{"q": {q}}), "q %q", q)
		}
		assert.Equal(t, []string{"dune"}, search(t, url.Values{"q": {"frank"}, "status": {"lent"}}))
		assert.Equal(t, []string{"frankenstein", "messiah"}, search(t, url.Values{"q": {"frank"}, "status": {"available"}}))

		t.Run("over pages", func(t *testing.T) {
			query := url.Values{"q": {"frank"}, "minPosition": {fmt.Sprint(lent.Position)}}
			assert.Equal(t, []string{"dune", "frankenstein", "messiah"}, readAllPages(t, a, query, 1))
			query = url.Values{"q": {"frank"}, "status": {"available"}}
			assert.Equal(t, []string{"frankenstein", "messiah"}, readAllPages(t, a, query, 1))
		})
		t.Run("limits: 200 characters, 10 words", func(t *testing.T) {
			assert.Empty(t, search(t, url.Values{"q": {strings.Repeat("é", 200)}}))
			assert.Equal(t, []string{"dune", "messiah"}, search(t, url.Values{"q": {"d u n e f r a n k h"}}))
		})
		t.Run("400 for a q out of the contract", func(t *testing.T) {
			for name, raw := range map[string]string{
				"201 characters": url.QueryEscape(strings.Repeat("é", 201)),
				"11 words":       url.QueryEscape("a b c d e f g h i j k"),
				"a tab":          "dune%09frank",
				"a newline":      "dune%0Afrank",
				"NUL":            "dune%00",
				"DEL":            "dune%7F",
				"U+001F":         "dune%1Ffrank",
				"not UTF-8":      "dune%FF",
			} {
				t.Run(name, func(t *testing.T) {
					apitest.RequireProblem(t, a.Get(t, "/books?q="+raw), http.StatusBadRequest, "InvalidRequest")
				})
			}
		})
	})
}
