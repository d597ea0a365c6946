package accountsapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// A fine's reason is sealed in the log, and every answer shows it opened: the command's, the
// history's, and the export's, in its events and its list of fines.
func TestHTTPFineReasonsReadOpened(t *testing.T) {
	t.Parallel()
	const reason = "Ann Reader, 12 Elm St, tore a page of Dune"
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		apitest.SetContact(t, a, "m-ann", "Ann Reader", "ann@example.org")
		fined := apitest.Fine(t, a, "m-ann", 300, reason)
		apitest.RequireEvent(t, fined, "FineCharged", `{"amount":300,"reason":"`+reason+`"}`)

		type entry struct {
			Type string `json:"type"`
			Data struct {
				Reason string `json:"reason"`
			} `json:"data"`
		}
		var history struct {
			Entries []entry `json:"entries"`
		}
		read(t, a, "/accounts/m-ann/history", &history)
		require.Len(t, history.Entries, 2)
		assert.Equal(t, "FineCharged", history.Entries[0].Type)
		assert.Equal(t, reason, history.Entries[0].Data.Reason, "the history")

		var export struct {
			Events []entry `json:"events"`
			Fines  []struct {
				Reason string `json:"reason"`
			} `json:"fines"`
		}
		read(t, a, "/accounts/m-ann/export", &export)
		require.Len(t, export.Events, 2)
		assert.Equal(t, reason, export.Events[1].Data.Reason, "the export's events")
		require.Len(t, export.Fines, 1)
		assert.Equal(t, reason, export.Fines[0].Reason, "the export's fines")
	})
}

// read GETs path, checks its 200, and reads the members of its body that v has.
func read(t *testing.T, a *apitest.API, path string, v any) {
	t.Helper()
	r := a.Get(t, path)
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	require.NoError(t, json.Unmarshal(r.Body, v))
}
