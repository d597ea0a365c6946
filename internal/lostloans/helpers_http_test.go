package lostloans_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/apitest"
	"library/internal/testkit/smtptest"
)

// history is what these tests read of GET /accounts/{memberId}/history: each entry's type and
// data, newest first.
type history struct {
	MemberID string `json:"memberId"`
	Entries  []struct {
		Type       string          `json:"type"`
		Version    int64           `json:"version"`
		Position   int64           `json:"position"`
		RecordedAt string          `json:"recordedAt"`
		Data       json.RawMessage `json:"data"`
		By         json.RawMessage `json:"by"`
	} `json:"entries"`
	Next *int64 `json:"next"`
}

// entries are the data of a member's account's events of type typ, oldest first.
func entries(t *testing.T, a *apitest.API, member, typ string) []json.RawMessage {
	t.Helper()
	var h history
	apitest.RequireJSON(t, a.Get(t, "/accounts/"+member+"/history?limit=100"), &h)
	var out []json.RawMessage
	for i := len(h.Entries) - 1; i >= 0; i-- {
		if h.Entries[i].Type == typ {
			out = append(out, h.Entries[i].Data)
		}
	}
	return out
}

// book is what these tests read of GET /books/{bookId}.
type book struct {
	ID      string          `json:"id"`
	TitleID string          `json:"titleId"`
	Title   string          `json:"title"`
	Author  string          `json:"author"`
	Status  string          `json:"status"`
	Loan    json.RawMessage `json:"loan"`
	Version int64           `json:"version"`
}

func getBook(t *testing.T, a *apitest.API, id string) book {
	t.Helper()
	var b book
	apitest.RequireJSON(t, a.Get(t, "/books/"+id), &b)
	return b
}

// listed reports whether GET /books?status= lists the book.
func listed(t *testing.T, a *apitest.API, status, id string) bool {
	t.Helper()
	r := a.Get(t, "/books?status="+status)
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	var page struct {
		Books []book `json:"books"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &page))
	for _, b := range page.Books {
		if b.ID == id {
			return true
		}
	}
	return false
}

// sentTo are the emails to addr whose subject starts with prefix, in the order they came.
func sentTo(smtp *smtptest.Server, addr, prefix string) []smtptest.Message {
	var out []smtptest.Message
	for _, m := range smtp.Messages() {
		if len(m.To) == 1 && m.To[0] == addr && strings.HasPrefix(m.Subject, prefix) {
			out = append(out, m)
		}
	}
	return out
}

// types are the types of the events a command recorded.
func types(r apitest.Result) []string {
	var out []string
	for _, e := range r.Events {
		out = append(out, e.Type)
	}
	return out
}
