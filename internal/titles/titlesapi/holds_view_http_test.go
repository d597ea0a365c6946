package titlesapi_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// memberHolds is what this test reads of GET /accounts/{memberId}/holds.
type memberHolds struct {
	Holds []struct {
		BookID  *string    `json:"bookId"`
		TitleID string     `json:"titleId"`
		Title   string     `json:"title"`
		Status  string     `json:"status"`
		Place   *int       `json:"place"`
		Until   *time.Time `json:"until"`
	} `json:"holds"`
}

// A member's holds list their holds on titles: their place in the title's queue while they
// wait for any copy, under the title's name as it is now, and the copy and the time it waits
// until once one is held for them.
func TestHTTPAMembersHoldsOnTitles(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, apitest.FastBackground(app.Config{}), func(t *testing.T, a *apitest.API) {
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles", apitest.Obj{"id": "dune", "title": "Dune", "authors": []string{"Frank Herbert"}}),
			http.StatusCreated, "title-dune")
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles/dune/copies", apitest.Obj{"id": "dune-1", "barcode": "B1"}), http.StatusCreated, "book-dune-1")
		apitest.Lend(t, a, "dune-1", "loan-1", "reader")
		for _, m := range []string{"ann", "ben"} {
			apitest.SetContact(t, a, m, m, "")
			apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles/dune/holds", apitest.Obj{"memberId": m}, "Idempotency-Key", m),
				http.StatusCreated, "title-dune")
		}
		read := func(member string) memberHolds {
			t.Helper()
			var got memberHolds
			apitest.Eventually(t, 10*time.Second, func() bool {
				r := a.Get(t, "/accounts/"+member+"/holds")
				require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
				got = memberHolds{}
				require.NoError(t, json.Unmarshal(r.Body, &got))
				return len(got.Holds) == 1
			}, "%s's hold in the holds view", member)
			return got
		}
		ben := read("ben")
		assert.Nil(t, ben.Holds[0].BookID, "waiting for any copy")
		assert.Equal(t, "dune", ben.Holds[0].TitleID)
		assert.Equal(t, "Dune", ben.Holds[0].Title)
		assert.Equal(t, "waiting", ben.Holds[0].Status)
		require.NotNil(t, ben.Holds[0].Place)
		assert.Equal(t, 2, *ben.Holds[0].Place)

		// A title renamed: its holds show the new name, and keep their places.
		r := a.Call(t, http.MethodPatch, "/titles/dune", apitest.Obj{"title": "Dune (1965)"}, "Content-Type", "application/merge-patch+json")
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		apitest.Eventually(t, 10*time.Second, func() bool { return read("ben").Holds[0].Title == "Dune (1965)" }, "ben's hold renamed")
		ben = read("ben")
		require.NotNil(t, ben.Holds[0].Place)
		assert.Equal(t, 2, *ben.Holds[0].Place, "renamed, still second")

		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune-1/returns", apitest.Obj{"loanId": "loan-1"}), http.StatusCreated, "book-dune-1")
		apitest.Eventually(t, 10*time.Second, func() bool {
			ann := read("ann")
			return ann.Holds[0].Status == "ready" && ann.Holds[0].BookID != nil && *ann.Holds[0].BookID == "dune-1" && ann.Holds[0].Until != nil
		}, "ann's hold ready, on dune-1")
		ben = read("ben")
		require.NotNil(t, ben.Holds[0].Place)
		assert.Equal(t, 1, *ben.Holds[0].Place, "ben moved up")
	})
}
