package booksapi_test

// Contract tests of copies (docs/api.md, "Titles and copies"): POST /titles/{titleId}/copies,
// GET /books?barcode=, and POST /books making or joining a title. Each runs on both stores.

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/books"
	"library/internal/testkit/apitest"
)

// addDune adds the title dune, by two authors, with its ISBN.
func addDune(t *testing.T, a *apitest.API) {
	t.Helper()
	apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles", apitest.Obj{"id": "dune", "title": "Dune",
		"authors": []string{"Frank Herbert", "Brian Herbert"}, "isbn": "0-441-01359-7"}), http.StatusCreated, "title-dune")
}

// addCopy adds a copy of titleID with a barcode and checks its 201.
func addCopy(t *testing.T, a *apitest.API, titleID, id, barcode string) apitest.Result {
	t.Helper()
	return apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles/"+titleID+"/copies", apitest.Obj{"id": id, "barcode": barcode}),
		http.StatusCreated, "book-"+id)
}

// titleCopies reads a title's copies and counts, as GET /titles/{titleId} answers them.
type titleCopies struct {
	Copies []struct {
		ID        string  `json:"id"`
		Barcode   *string `json:"barcode"`
		Status    string  `json:"status"`
		DueAt     *string `json:"dueAt"`
		HeldUntil *string `json:"heldUntil"`
		MemberID  string  `json:"memberId"`
		Mine      *bool   `json:"mine"`
	} `json:"copies"`
	Counts struct {
		Total        int `json:"total"`
		Available    int `json:"available"`
		HoldsWaiting int `json:"holdsWaiting"`
	} `json:"counts"`
	Version int64 `json:"version"`
}

func getTitle(t *testing.T, a *apitest.API, titleID string, headers ...string) titleCopies {
	t.Helper()
	r := a.Call(t, http.MethodGet, "/titles/"+titleID, nil, headers...)
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	var got titleCopies
	require.NoError(t, json.Unmarshal(r.Body, &got))
	return got
}

// POST /titles/{titleId}/copies: 201 BookAdded, a copy of the title with its barcode in
// capitals; the title lists it; 409 BarcodeTaken for a barcode another copy has, however it is
// written; 409 BookAlreadyExists for an id used; 404 for a title never added; an id made from
// the Idempotency-Key; every field's rule.
func TestHTTPAddCopy(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/titles/dune/copies", apitest.Obj{"id": "dune-1", "barcode": "1"}),
			http.StatusNotFound, "NotFound")
		addDune(t, a)
		t.Run("201 BookAdded, and the title lists the copy", func(t *testing.T) {
			res := addCopy(t, a, "dune", "dune-1", "lib-0042")
			assert.EqualValues(t, 1, res.Version)
			apitest.RequireEvent(t, res, "BookAdded",
				`{"id":"dune-1","titleId":"dune","barcode":"LIB-0042","title":"Dune","author":"Frank Herbert, Brian Herbert"}`)
			got := getTitle(t, a, "dune")
			require.Len(t, got.Copies, 1)
			assert.Equal(t, "dune-1", got.Copies[0].ID)
			assert.Equal(t, "LIB-0042", *got.Copies[0].Barcode)
			assert.EqualValues(t, 2, got.Version, "TitleAdded, CopyAdded")
		})
		t.Run("409 BarcodeTaken, however the barcode is written", func(t *testing.T) {
			for _, barcode := range []string{"LIB-0042", "lib-0042", "Lib-0042"} {
				r := a.Call(t, http.MethodPost, "/titles/dune/copies", apitest.Obj{"id": "dune-2", "barcode": barcode})
				p := apitest.RequireProblem(t, r, http.StatusConflict, "BarcodeTaken")
				assert.Contains(t, p.Detail, "book-dune-1", "the detail names the copy that has it")
			}
			apitest.RequireProblem(t, a.Get(t, "/books/dune-2"), http.StatusNotFound, "NotFound")
			assert.Len(t, getTitle(t, a, "dune").Copies, 1, "a refused copy is not listed")
		})
		t.Run("409 BookAlreadyExists", func(t *testing.T) {
			r := a.Call(t, http.MethodPost, "/titles/dune/copies", apitest.Obj{"id": "dune-1", "barcode": "LIB-0043"})
			apitest.RequireProblem(t, r, http.StatusConflict, "BookAlreadyExists")
		})
		t.Run("no id: one made from the Idempotency-Key, which is then required", func(t *testing.T) {
			body := apitest.Obj{"barcode": "31234000000017"}
			first := a.Call(t, http.MethodPost, "/titles/dune/copies", body, "Idempotency-Key", "copy-1")
			res := apitest.RequireResult(t, first, http.StatusCreated, streamOf(t, first))
			require.True(t, strings.HasPrefix(res.StreamID, "book-b_"), res.StreamID)
			apitest.RequireReplay(t, first, a.Call(t, http.MethodPost, "/titles/dune/copies", body, "Idempotency-Key", "copy-1"))
			apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/titles/dune/copies", apitest.Obj{"barcode": "2"}),
				http.StatusBadRequest, "IdempotencyKeyMissing")
			assert.Len(t, getTitle(t, a, "dune").Copies, 2)
		})
		t.Run("400 for fields that break the rules", func(t *testing.T) {
			for name, body := range map[string]string{
				"barcode missing":         `{"id":"c1"}`,
				"barcode empty":           `{"id":"c1","barcode":""}`,
				"barcode null":            `{"id":"c1","barcode":null}`,
				"barcode with a space":    `{"id":"c1","barcode":"12 34"}`,
				"barcode with a slash":    `{"id":"c1","barcode":"12/34"}`,
				"barcode of 33":           `{"id":"c1","barcode":"` + strings.Repeat("1", 33) + `"}`,
				"barcode a number":        `{"id":"c1","barcode":1234}`,
				"barcode starting with -": `{"id":"c1","barcode":"-1"}`,
				"id with a space":         `{"id":"c 1","barcode":"1"}`,
			} {
				t.Run(name, func(t *testing.T) {
					apitest.RequireProblem(t, a.Send(t, http.MethodPost, "/titles/dune/copies", []byte(body)), http.StatusBadRequest, "InvalidRequest")
				})
			}
		})
		apitest.RequireBadPathIDs(t, a, http.MethodPost, "/titles/%s/copies", apitest.Obj{"id": "c1", "barcode": "1"})
		apitest.RequireBodyErrors(t, a, http.MethodPost, "/titles/dune/copies", `{"id":"c2","barcode":"C2"}`)
	})
}

// streamOf is the streamId of a command's answer, for one whose book's id the service made.
func streamOf(t *testing.T, r apitest.Response) string {
	t.Helper()
	var res struct {
		StreamID string `json:"streamId"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &res), "body: %s", r.Body)
	return res.StreamID
}

// GET /books?barcode=: the copy, as GET /books/{bookId} answers it, at once, however the
// barcode is written; 404 for a barcode no copy has; 400 for one that is none, or given with
// other parameters. GET /books without it is the catalog's page, as before.
func TestHTTPFindCopyByBarcode(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		addDune(t, a)
		addCopy(t, a, "dune", "dune-1", "31234000000017")
		apitest.Lend(t, a, "dune-1", "loan-1", "alice")
		want := a.Get(t, "/books/dune-1")
		for _, barcode := range []string{"31234000000017"} {
			r := a.Get(t, "/books?barcode="+barcode)
			require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
			require.JSONEq(t, string(want.Body), string(r.Body))
		}
		addCopy(t, a, "dune", "dune-2", "LIB-7")
		var b apitest.Book
		apitest.RequireJSON(t, a.Get(t, "/books?barcode=lib-7"), &b)
		assert.Equal(t, apitest.Book{ID: "dune-2", TitleID: "dune", Title: "Dune", Author: "Frank Herbert, Brian Herbert", Status: "available", Version: 1}, b)

		apitest.RequireProblem(t, a.Get(t, "/books?barcode=31234000000025"), http.StatusNotFound, "NotFound")
		for _, query := range []string{"barcode=", "barcode=12%2034", "barcode=LIB-7&q=dune", "barcode=LIB-7&limit=1", "barcode=1&barcode=2",
			"barcode=" + strings.Repeat("1", 33)} {
			apitest.RequireProblem(t, a.Get(t, "/books?"+query), http.StatusBadRequest, "InvalidRequest")
		}
		var list apitest.CatalogList
		apitest.RequireJSON(t, a.Get(t, "/books"), &list)
		assert.NotNil(t, list.Books, "without barcode, a page of the catalog")
	})
}

// POST /books, as clients of today send it, answers as before, and the book is now a copy of
// a title: the one its title and author make, shared by every book alike, or the one that holds
// its ISBN, or one made with it; a barcode, when given, is the copy's.
func TestHTTPAddBookMakesOrJoinsATitle(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		titleID := books.TitleIDOf("Dune", "Frank Herbert")
		for _, b := range []apitest.Obj{
			{"id": "dune-a", "title": "Dune", "author": "Frank Herbert"},
			{"id": "dune-b", "title": "DUNE.", "author": "frank  herbert"},
		} {
			res := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books", b), http.StatusCreated, "book-"+b["id"].(string))
			require.Len(t, res.Events, 1, "the answer has the book's event only")
			var added struct {
				TitleID string `json:"titleId"`
			}
			require.NoError(t, json.Unmarshal(res.Events[0].Data, &added))
			assert.Equal(t, titleID, added.TitleID)
		}
		var title struct {
			ID      string   `json:"id"`
			Title   string   `json:"title"`
			Authors []string `json:"authors"`
			ISBN    *string  `json:"isbn"`
		}
		require.NoError(t, json.Unmarshal(a.Get(t, "/titles/"+titleID).Body, &title))
		assert.Equal(t, "Dune", title.Title, "the first book's title, as it was typed")
		assert.Equal(t, []string{"Frank Herbert"}, title.Authors)
		assert.Len(t, getTitle(t, a, titleID).Copies, 2)

		addDune(t, a)
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": "dune-c", "title": "Dune", "author": "Frank Herbert",
			"isbn": "978-0-441-01359-3", "barcode": "31234000000033"}), http.StatusCreated, "book-dune-c")
		got := getTitle(t, a, "dune")
		require.Len(t, got.Copies, 1, "the title that holds the ISBN")
		assert.Equal(t, "31234000000033", *got.Copies[0].Barcode)
		var found apitest.Book
		apitest.RequireJSON(t, a.Get(t, "/books?barcode=31234000000033"), &found)
		assert.Equal(t, "dune-c", found.ID)

		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": "messiah", "title": "Dune Messiah", "author": "Frank Herbert",
			"isbn": "0-399-12842-5", "barcode": nil}), http.StatusCreated, "book-messiah")
		require.NoError(t, json.Unmarshal(a.Get(t, "/titles/isbn-9780399128424").Body, &title))
		assert.Equal(t, "9780399128424", *title.ISBN, "a title made with the ISBN, which it holds")
		r := a.Call(t, http.MethodPost, "/titles", apitest.Obj{"id": "messiah", "title": "Dune Messiah", "authors": []string{"Frank Herbert"}, "isbn": "0399128425"})
		apitest.RequireProblem(t, r, http.StatusConflict, "TitleAlreadyExists")

		apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": "dune-d", "title": "Dune", "author": "Frank Herbert",
			"barcode": "31234000000033"}), http.StatusConflict, "BarcodeTaken")
		for name, body := range map[string]string{
			"isbn empty":         `{"id":"b1","title":"T","author":"A","isbn":""}`,
			"isbn wrong":         `{"id":"b1","title":"T","author":"A","isbn":"0-441-01359-8"}`,
			"isbn a number":      `{"id":"b1","title":"T","author":"A","isbn":9780441013593}`,
			"barcode empty":      `{"id":"b1","title":"T","author":"A","barcode":""}`,
			"barcode with space": `{"id":"b1","title":"T","author":"A","barcode":"1 2"}`,
		} {
			t.Run(name, func(t *testing.T) {
				apitest.RequireProblem(t, a.Send(t, http.MethodPost, "/books", []byte(body)), http.StatusBadRequest, "InvalidRequest")
			})
		}
	})
}
