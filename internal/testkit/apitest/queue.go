package apitest

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TitleQueue is what the tests read of GET /titles/{titleId}/holds: the members waiting, in
// order, and the copies on the hold shelf with whom each waits for.
type TitleQueue struct {
	Waiting []struct {
		MemberID string `json:"memberId"`
		Place    int    `json:"place"`
	} `json:"waiting"`
	Ready []struct {
		MemberID string `json:"memberId"`
		BookID   string `json:"bookId"`
	} `json:"ready"`
}

// ReadQueue reads a title's queue, checking its 200.
func ReadQueue(t *testing.T, a *API, titleID string) TitleQueue {
	t.Helper()
	r := a.Get(t, "/titles/"+titleID+"/holds")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	var q TitleQueue
	require.NoError(t, json.Unmarshal(r.Body, &q))
	return q
}
