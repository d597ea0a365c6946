package titlesapi_test

// Contract tests for the titles endpoints of docs/api.md. Each test runs on both stores, and
// every answer is checked against the OpenAPI document by the harness.

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// duneBody is a title with every field, written as a librarian might type it.
func duneBody() apitest.Obj {
	return apitest.Obj{"id": "dune", "title": "Dune", "authors": []string{"Frank Herbert"}, "isbn": "0-441-01359-7",
		"year": 1965, "publisher": "Chilton Books", "language": "ENG", "subjects": []string{"Science fiction", "Deserts"}}
}

// duneAdded is duneBody's TitleAdded: the ISBN as its 13 digits, the language as its shortest code.
const duneAdded = `{"id":"dune","title":"Dune","authors":["Frank Herbert"],"isbn":"9780441013593","year":1965,
	"publisher":"Chilton Books","language":"en","subjects":["Science fiction","Deserts"]}`

// addTitle adds the title id with the given ISBN (none for "") and checks its 201.
func addTitle(t *testing.T, a *apitest.API, id, isbn string) apitest.Result {
	t.Helper()
	body := apitest.Obj{"id": id, "title": "Title " + id, "authors": []string{"An Author"}}
	if isbn != "" {
		body["isbn"] = isbn
	}
	return apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles", body), http.StatusCreated, "title-"+id)
}

// streamOf is the streamId of a command's answer, for one whose title's id the service made.
func streamOf(t *testing.T, r apitest.Response) string {
	t.Helper()
	var res struct {
		StreamID string `json:"streamId"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &res), "body: %s", r.Body)
	return res.StreamID
}

// POST /titles: 201 TitleAdded in the form the catalogue keeps; 409 TitleAlreadyExists for an
// id or an ISBN already used; an id made from the Idempotency-Key; every field's rule.
func TestHTTPAddTitle(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		t.Run("201 TitleAdded", func(t *testing.T) {
			res := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles", duneBody()), http.StatusCreated, "title-dune")
			assert.EqualValues(t, 1, res.Version)
			apitest.RequireEvent(t, res, "TitleAdded", duneAdded)
		})
		t.Run("409 TitleAlreadyExists: the id", func(t *testing.T) {
			r := a.Call(t, http.MethodPost, "/titles", apitest.Obj{"id": "dune", "title": "Dune Messiah", "authors": []string{"Frank Herbert"}})
			apitest.RequireProblem(t, r, http.StatusConflict, "TitleAlreadyExists")
		})
		t.Run("409 TitleAlreadyExists: the ISBN, written as its ISBN-13", func(t *testing.T) {
			r := a.Call(t, http.MethodPost, "/titles", apitest.Obj{"id": "dune-again", "title": "Dune", "authors": []string{"Frank Herbert"},
				"isbn": "978 0 441 01359 3"})
			p := apitest.RequireProblem(t, r, http.StatusConflict, "TitleAlreadyExists")
			assert.Contains(t, p.Detail, "title-dune", "the detail names the title that has it")
			apitest.RequireProblem(t, a.Get(t, "/titles/dune-again"), http.StatusNotFound, "NotFound")
		})
		t.Run("optional members left out or null", func(t *testing.T) {
			res := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles", apitest.Obj{"id": "emma", "title": "Emma",
				"authors": []string{"Jane Austen"}, "isbn": nil, "year": nil, "publisher": nil, "language": nil, "subjects": nil}), http.StatusCreated, "title-emma")
			apitest.RequireEvent(t, res, "TitleAdded", `{"id":"emma","title":"Emma","authors":["Jane Austen"]}`)
		})
		t.Run("a repeat with its Idempotency-Key is replayed, not refused", func(t *testing.T) {
			body := apitest.Obj{"id": "ulysses", "title": "Ulysses", "authors": []string{"James Joyce"}, "isbn": "0-679-72276-9"}
			first := a.Call(t, http.MethodPost, "/titles", body, "Idempotency-Key", "add-ulysses")
			apitest.RequireResult(t, first, http.StatusCreated, "title-ulysses")
			apitest.RequireReplay(t, first, a.Call(t, http.MethodPost, "/titles", body, "Idempotency-Key", "add-ulysses"))
			apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/titles", body), http.StatusConflict, "TitleAlreadyExists")
		})
		t.Run("no id: one made from the Idempotency-Key, which is then required", func(t *testing.T) {
			body := apitest.Obj{"title": "Middlemarch", "authors": []string{"George Eliot"}}
			first := a.Call(t, http.MethodPost, "/titles", body, "Idempotency-Key", "add-middlemarch")
			res := apitest.RequireResult(t, first, http.StatusCreated, streamOf(t, first))
			require.True(t, strings.HasPrefix(res.StreamID, "title-t_"), res.StreamID)
			id := strings.TrimPrefix(res.StreamID, "title-")
			apitest.RequireEvent(t, res, "TitleAdded", `{"id":"`+id+`","title":"Middlemarch","authors":["George Eliot"]}`)
			apitest.RequireReplay(t, first, a.Call(t, http.MethodPost, "/titles", body, "Idempotency-Key", "add-middlemarch"))
			other := a.Call(t, http.MethodPost, "/titles", body, "Idempotency-Key", "add-middlemarch-again")
			assert.NotEqual(t, res.StreamID, apitest.RequireResult(t, other, http.StatusCreated, streamOf(t, other)).StreamID)

			apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/titles", body), http.StatusBadRequest, "IdempotencyKeyMissing")
			apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/titles", apitest.Obj{"id": nil, "title": "M", "authors": []string{"G"}}),
				http.StatusBadRequest, "IdempotencyKeyMissing")
		})
		t.Run("400 for fields that break the rules", func(t *testing.T) {
			for name, body := range badAdds() {
				t.Run(name, func(t *testing.T) {
					apitest.RequireProblem(t, a.Send(t, http.MethodPost, "/titles", []byte(body)), http.StatusBadRequest, "InvalidRequest")
				})
			}
			apitest.RequireProblem(t, a.Get(t, "/titles/t1"), http.StatusNotFound, "NotFound")
		})
		apitest.RequireBodyErrors(t, a, http.MethodPost, "/titles", `{"id":"t2","title":"T","authors":["A"]}`)
	})
}

// badAdds are bodies of POST /titles that are 400 InvalidRequest, by what is wrong.
func badAdds() map[string]string {
	long := func(n int) string { return `"` + strings.Repeat("x", n) + `"` }
	return map[string]string{
		"title missing":           `{"id":"t1","authors":["A"]}`,
		"authors missing":         `{"id":"t1","title":"T"}`,
		"authors empty":           `{"id":"t1","title":"T","authors":[]}`,
		"authors not a list":      `{"id":"t1","title":"T","authors":"A"}`,
		"an author blank":         `{"id":"t1","title":"T","authors":["A"," "]}`,
		"an author twice":         `{"id":"t1","title":"T","authors":["A","A"]}`,
		"21 authors":              `{"id":"t1","title":"T","authors":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r","s","t","u"]}`,
		"an author of 301 chars":  `{"id":"t1","title":"T","authors":[` + long(301) + `]}`,
		"id empty":                `{"id":"","title":"T","authors":["A"]}`,
		"id with a space":         `{"id":"t 1","title":"T","authors":["A"]}`,
		"title with a newline":    `{"id":"t1","title":"T\nU","authors":["A"]}`,
		"title of 301 chars":      `{"id":"t1","title":` + long(301) + `,"authors":["A"]}`,
		"ISBN check digit wrong":  `{"id":"t1","title":"T","authors":["A"],"isbn":"0-441-01359-8"}`,
		"ISBN of 12 digits":       `{"id":"t1","title":"T","authors":["A"],"isbn":"978044101359"}`,
		"ISBN empty":              `{"id":"t1","title":"T","authors":["A"],"isbn":""}`,
		"ISBN a number":           `{"id":"t1","title":"T","authors":["A"],"isbn":9780441013593}`,
		"ISBN far too long":       `{"id":"t1","title":"T","authors":["A"],"isbn":` + long(100000) + `}`,
		"year 999":                `{"id":"t1","title":"T","authors":["A"],"year":999}`,
		"year after next":         `{"id":"t1","title":"T","authors":["A"],"year":2028}`,
		"year not whole":          `{"id":"t1","title":"T","authors":["A"],"year":1965.5}`,
		"year a string":           `{"id":"t1","title":"T","authors":["A"],"year":"1965"}`,
		"year beyond any int":     `{"id":"t1","title":"T","authors":["A"],"year":1e40}`,
		"publisher empty":         `{"id":"t1","title":"T","authors":["A"],"publisher":""}`,
		"publisher of 201 chars":  `{"id":"t1","title":"T","authors":["A"],"publisher":` + long(201) + `}`,
		"language unknown":        `{"id":"t1","title":"T","authors":["A"],"language":"xx"}`,
		"language with a region":  `{"id":"t1","title":"T","authors":["A"],"language":"en-GB"}`,
		"language a name":         `{"id":"t1","title":"T","authors":["A"],"language":"English"}`,
		"a subject twice":         `{"id":"t1","title":"T","authors":["A"],"subjects":["S","S"]}`,
		"a subject of 101 chars":  `{"id":"t1","title":"T","authors":["A"],"subjects":[` + long(101) + `]}`,
		"a subject not a string":  `{"id":"t1","title":"T","authors":["A"],"subjects":[1]}`,
		"an unknown member":       `{"id":"t1","title":"T","authors":["A"],"author":"A"}`,
		"a member in other case":  `{"id":"t1","Title":"T","authors":["A"]}`,
		"a member given twice":    `{"id":"t1","title":"T","authors":["A"],"title":"U"}`,
		"authors with an object":  `{"id":"t1","title":"T","authors":[{"name":"A"}]}`,
		"authors with null":       `{"id":"t1","title":"T","authors":[null]}`,
		"title null":              `{"id":"t1","title":null,"authors":["A"]}`,
		"an ISBN-10 X not at end": `{"id":"t1","title":"T","authors":["A"],"isbn":"0-441-0135X-7"}`,
	}
}

// GET /titles/{titleId}: 404 for a title never added; the record in its final shape, with
// null for what the title lacks, no copies and counts of none; 400 for a bad id.
func TestHTTPGetTitle(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		apitest.RequireProblem(t, a.Get(t, "/titles/dune"), http.StatusNotFound, "NotFound")
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles", duneBody()), http.StatusCreated, "title-dune")
		addTitle(t, a, "emma", "")

		r := a.Get(t, "/titles/dune")
		apitest.RequireKeys(t, r.Body, "id", "title", "authors", "isbn", "year", "publisher", "language", "subjects", "copies", "counts", "version")
		require.JSONEq(t, `{"id":"dune","title":"Dune","authors":["Frank Herbert"],"isbn":"9780441013593","year":1965,
			"publisher":"Chilton Books","language":"en","subjects":["Science fiction","Deserts"],"copies":[],
			"counts":{"total":0,"available":0,"holdsWaiting":0},"version":1}`, string(r.Body))
		require.JSONEq(t, `{"id":"emma","title":"Title emma","authors":["An Author"],"isbn":null,"year":null,"publisher":null,
			"language":null,"subjects":[],"copies":[],"counts":{"total":0,"available":0,"holdsWaiting":0},"version":1}`,
			string(a.Get(t, "/titles/emma").Body))
		apitest.RequireBadPathIDs(t, a, http.MethodGet, "/titles/%s", nil)
	})
}
