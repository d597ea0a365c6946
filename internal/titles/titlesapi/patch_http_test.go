package titlesapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// patch sends a JSON merge patch of the title id.
func patch(t *testing.T, a *apitest.API, id string, body apitest.Obj, headers ...string) apitest.Response {
	t.Helper()
	return a.Send(t, http.MethodPatch, "/titles/"+id, apitest.MustJSON(t, body),
		append([]string{"Content-Type", "application/merge-patch+json"}, headers...)...)
}

// PATCH /titles/{titleId}: a merge patch records only what it changes, nothing for no change,
// removes what is null, refuses to remove what every title has, and moves the ISBN's
// reservation: the old ISBN is free for another title, a new one another title has is 409.
func TestHTTPChangeTitle(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles", duneBody()), http.StatusCreated, "title-dune")

		t.Run("201 TitleChanged with only what changed", func(t *testing.T) {
			r := patch(t, a, "dune", apitest.Obj{"title": "Dune", "year": 1966, "language": "en", "publisher": "Ace"})
			res := apitest.RequireResult(t, r, http.StatusCreated, "title-dune")
			assert.EqualValues(t, 2, res.Version)
			apitest.RequireEvent(t, res, "TitleChanged", `{"year":1966,"publisher":"Ace"}`)
		})
		t.Run("200 and nothing recorded when nothing changes", func(t *testing.T) {
			for _, body := range []apitest.Obj{{}, {"isbn": "0441013597", "authors": []string{"Frank Herbert"}}} {
				res := apitest.RequireResult(t, patch(t, a, "dune", body), http.StatusOK, "title-dune")
				assert.EqualValues(t, 2, res.Version)
			}
		})
		t.Run("null removes, [] removes subjects, a list is replaced whole", func(t *testing.T) {
			r := patch(t, a, "dune", apitest.Obj{"year": nil, "subjects": []string{}, "authors": []string{"Frank Herbert", "Brian Herbert"}})
			apitest.RequireEvent(t, apitest.RequireResult(t, r, http.StatusCreated, "title-dune"), "TitleChanged",
				`{"authors":["Frank Herbert","Brian Herbert"],"removed":["year","subjects"]}`)
			require.JSONEq(t, `{"id":"dune","title":"Dune","authors":["Frank Herbert","Brian Herbert"],"isbn":"9780441013593","year":null,
				"publisher":"Ace","language":"en","subjects":[],"copies":[],"counts":{"total":0,"available":0,"holdsWaiting":0},"version":3}`,
				string(a.Get(t, "/titles/dune").Body))
		})
		t.Run("application/json is read as a merge patch too", func(t *testing.T) {
			r := a.Call(t, http.MethodPatch, "/titles/dune", apitest.Obj{"subjects": []string{"Ecology"}})
			apitest.RequireEvent(t, apitest.RequireResult(t, r, http.StatusCreated, "title-dune"), "TitleChanged", `{"subjects":["Ecology"]}`)
		})
		t.Run("the ISBN moves: the old one is free, another title's is refused", func(t *testing.T) {
			addTitle(t, a, "messiah", "978-0-593-09823-3")
			r := patch(t, a, "dune", apitest.Obj{"isbn": "978-0-593-09823-3"})
			apitest.RequireProblem(t, r, http.StatusConflict, "TitleAlreadyExists")

			r = patch(t, a, "dune", apitest.Obj{"isbn": "978-0-593-09932-2"})
			apitest.RequireEvent(t, apitest.RequireResult(t, r, http.StatusCreated, "title-dune"), "TitleChanged", `{"isbn":"9780593099322"}`)
			addTitle(t, a, "dune-ace", "0-441-01359-7")
			apitest.RequireProblem(t, patch(t, a, "dune", apitest.Obj{"isbn": "9780441013593"}), http.StatusConflict, "TitleAlreadyExists")

			r = patch(t, a, "messiah", apitest.Obj{"isbn": nil})
			apitest.RequireEvent(t, apitest.RequireResult(t, r, http.StatusCreated, "title-messiah"), "TitleChanged", `{"removed":["isbn"]}`)
			addTitle(t, a, "messiah-again", "9780593098233")
		})
		t.Run("a repeat with its Idempotency-Key is replayed", func(t *testing.T) {
			first := patch(t, a, "dune", apitest.Obj{"title": "Dune (deluxe)"}, "Idempotency-Key", "rename-dune")
			apitest.RequireResult(t, first, http.StatusCreated, "title-dune")
			apitest.RequireReplay(t, first, patch(t, a, "dune", apitest.Obj{"title": "Dune (deluxe)"}, "Idempotency-Key", "rename-dune"))
			apitest.RequireProblem(t, patch(t, a, "dune", apitest.Obj{"title": "Dune"}, "Idempotency-Key", "rename-dune"),
				http.StatusUnprocessableEntity, "IdempotencyKeyReused")
		})
		t.Run("404 for a title never added", func(t *testing.T) {
			apitest.RequireProblem(t, patch(t, a, "nobody", apitest.Obj{"title": "T"}), http.StatusNotFound, "NotFound")
		})
		t.Run("400 for what a patch may not do", func(t *testing.T) {
			for name, body := range map[string]string{
				"title null":        `{"title":null}`,
				"authors null":      `{"authors":null}`,
				"authors empty":     `{"authors":[]}`,
				"title blank":       `{"title":" "}`,
				"a bad ISBN":        `{"isbn":"978-0-441-01359-4"}`,
				"an empty ISBN":     `{"isbn":""}`,
				"a bad year":        `{"year":10000}`,
				"a bad language":    `{"language":"english"}`,
				"an unknown member": `{"colour":"red"}`,
				"a JSON Patch body": `[{"op":"replace","path":"/title","value":"T"}]`,
			} {
				t.Run(name, func(t *testing.T) {
					r := a.Send(t, http.MethodPatch, "/titles/dune", []byte(body), "Content-Type", "application/merge-patch+json")
					apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
				})
			}
		})
		t.Run("415 for a JSON Patch", func(t *testing.T) {
			r := a.Send(t, http.MethodPatch, "/titles/dune", []byte(`[{"op":"remove","path":"/year"}]`), "Content-Type", "application/json-patch+json")
			apitest.RequireProblem(t, r, http.StatusUnsupportedMediaType, "UnsupportedMediaType")
		})
		apitest.RequireBodyErrors(t, a, http.MethodPatch, "/titles/dune", `{"title":"Dune"}`)
		apitest.RequireBadPathIDs(t, a, http.MethodPatch, "/titles/%s", apitest.Obj{"title": "T"})
	})
}
