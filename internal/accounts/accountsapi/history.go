package accountsapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"library/internal/accounts"
	"library/internal/auth"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/httpapi"
)

// History pages: 100 entries by default, at most 1000.
const (
	DefaultHistoryPage = 100
	MaxHistoryPage     = 1000
)

// historyView is GET /accounts/{memberId}/history: what happened to the account, newest first.
type historyView struct {
	MemberID string         `json:"memberId"`
	Entries  []historyEntry `json:"entries"`
	Next     *int64         `json:"next"`
}

type historyEntry struct {
	Version    int64           `json:"version"`
	Position   int64           `json:"position"`
	RecordedAt time.Time       `json:"recordedAt"`
	Type       string          `json:"type"`
	Data       json.RawMessage `json:"data"`
	By         *actorView      `json:"by"`
}

// actorView is who did something, as the viewer may see it.
type actorView struct {
	Role    string `json:"role"`
	Subject string `json:"subject,omitempty"`
	Issuer  string `json:"issuer,omitempty"`
}

func (h Routes) history(w http.ResponseWriter, r *http.Request) error {
	memberID, err := httpapi.PathID(r, "memberId")
	if err != nil {
		return err
	}
	before, limit, err := historyPage(r)
	if err != nil {
		return err
	}
	access := auth.AccessFrom(r.Context())
	if err := h.syncContact(r.Context(), access.Caller, memberID); err != nil {
		return err
	}
	if account, _, err := h.Service.Get(r.Context(), memberID); err != nil {
		return err
	} else if account.Erased {
		return errs.E(errs.Gone, "this member's account was erased")
	}
	events, next, err := h.Service.History(r.Context(), memberID, before, limit)
	if err != nil {
		return err
	}
	opened, err := h.Service.Present(r.Context(), memberID, events)
	if err != nil {
		return err
	}
	view := historyView{MemberID: memberID, Entries: make([]historyEntry, len(events))}
	if next > 0 {
		view.Next = &next
	}
	for i, e := range events {
		data, err := json.Marshal(accounts.Shown(opened[i])) // personal values opened, or erased; no PIN's hash
		if err != nil {
			return err
		}
		view.Entries[i] = historyEntry{Version: e.Version, Position: e.Position, RecordedAt: e.RecordedAt.UTC(),
			Type: e.Type, Data: data, By: shownActor(e.Metadata.Actor, access)}
	}
	httpapi.WriteJSON(w, r, http.StatusOK, view)
	return nil
}

// shownActor is who did something as the viewer may see it: staff see everyone; a member sees
// staff by their role only, and themself and the service's own work by name.
func shownActor(a eventstore.Actor, viewer auth.Access) *actorView {
	if a.Role == "" && a.Subject == "" {
		return nil // recorded before the log kept who acted
	}
	v := &actorView{Role: a.Role, Subject: a.Subject, Issuer: a.Issuer}
	if viewer.Staff() || a.Role == string(auth.System) || a.Role == string(auth.Open) {
		return v
	}
	if a.Subject == viewer.Caller.Subject && a.Issuer == viewer.Caller.Issuer {
		return v
	}
	return &actorView{Role: a.Role}
}

// historyPage reads ?before=V&limit=L.
func historyPage(r *http.Request) (before int64, limit int, err error) {
	q := r.URL.Query()
	limit = DefaultHistoryPage
	if values, ok := q["limit"]; ok {
		n, convErr := strconv.Atoi(values[0])
		if len(values) > 1 || convErr != nil || n < 1 || n > MaxHistoryPage {
			return 0, 0, errs.E(errs.InvalidRequest, "limit must be given once, a whole number from 1 to %d", MaxHistoryPage)
		}
		limit = n
	}
	if values, ok := q["before"]; ok {
		n, convErr := strconv.ParseInt(values[0], 10, 64)
		if len(values) > 1 || convErr != nil || n < 1 {
			return 0, 0, errs.E(errs.InvalidRequest, "before must be given once, a version of 1 or more")
		}
		before = n
	}
	return before, limit, nil
}
