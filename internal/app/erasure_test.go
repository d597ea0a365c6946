package app_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/smtptest"
)

// The member's personal data, which must be nowhere once they are erased: their name, their
// email, and what staff typed about them in a fine's reason.
const (
	erinName    = "Erin Zweistein"
	erinEmail   = "erin.zweistein@example.org"
	erinAddress = "12 Elm St"
)

// A member who had loans, fines, emails and payments is erased: the account answers 410 for
// everyone; a replay of every processor folds and sends nothing for them; a loan email still
// pending for them is parked as erased, never sent; and a dump of the whole database, and the
// events table's raw bytes, hold neither their name, nor their email, nor a fine's reason that
// named them. Everyone else's data is intact.
func TestErasureLeavesNothingReadable(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	databaseURL := pgtest.NewDatabase(t)
	clock := newClock()
	cfg := fastBackground(app.Config{DatabaseURL: databaseURL, SMTPURL: smtp.URL(), FinePerDay: 25, Tuning: app.Tuning{Now: clock.Now}})
	a := &api{Base: startService(t, cfg), Store: "postgres", Clock: clock}

	setContact(t, a, "m-erin", erinName, erinEmail)
	setContact(t, a, "m-fred", "Fred Quillfeather", "fred.quillfeather@example.org")
	addBook(t, a, "dune")
	lend(t, a, "dune", "loan-1", "m-erin")
	smtp.WaitForMessages(t, 1, 20*time.Second)
	clock.Advance(20 * 24 * time.Hour)
	requireResult(t, a.Call(t, http.MethodPost, "/books/dune/returns", obj{"loanId": "loan-1"}), http.StatusCreated, "book-dune")
	eventually(t, 20*time.Second, func() bool { return getAccount(t, a, "m-erin").Balance > 0 }, "the late fine")
	fine(t, a, "m-erin", 300, "Erin Q. Member, "+erinAddress+", tore a page of Dune")
	requireResult(t, pay(t, a, "m-erin", getAccount(t, a, "m-erin").Balance, "pay-all"), http.StatusCreated, "account-m-erin")

	// A second loan whose email can't go yet: the relay takes no mail.
	smtp.Refuse(421, "not now")
	addBook(t, a, "emma")
	lend(t, a, "emma", "loan-2", "m-erin")
	requireResult(t, a.Call(t, http.MethodPost, "/books/emma/returns", obj{"loanId": "loan-2"}), http.StatusCreated, "book-emma")
	lend(t, a, "dune", "loan-3", "m-fred")

	erased := a.Call(t, http.MethodPost, "/accounts/m-erin/erasure", nil)
	requireEvent(t, requireResult(t, erased, http.StatusCreated, "account-m-erin"), "MemberErased", `{}`)
	requireResult(t, a.Call(t, http.MethodPost, "/accounts/m-erin/erasure", nil), http.StatusOK, "account-m-erin")
	for _, path := range []string{"/accounts/m-erin", "/accounts/m-erin/history", "/accounts/m-erin/export"} {
		requireProblem(t, a.Get(t, path), http.StatusGone, "Gone")
	}
	requireProblem(t, a.Call(t, http.MethodPost, "/accounts/m-erin/fines", obj{"amount": 100, "reason": "late"}), http.StatusGone, "Gone")

	smtp.Refuse(0, "")
	eventually(t, 20*time.Second, func() bool {
		for _, p := range listParked(t, a, "notifications").Parked {
			if strings.Contains(p.Reason, "erased") {
				return true
			}
		}
		return false
	}, "the pending email parked as erased")
	catalogBuild := apitest.ReplayView(t, a, "catalog")
	require.Equal(t, http.StatusAccepted, admin(t, a, "late-fines", "replay").Status)
	// The outbox can't be replayed (what it sent stays sent); its parked events are tried again,
	// and the erased member's is parked again, unsent.
	require.Equal(t, http.StatusAccepted, admin(t, a, "notifications", "retry-parked").Status)
	require.Nil(t, apitest.Rebuilt(t, a, "catalog", catalogBuild).LastError)
	for _, name := range []string{"late-fines", "notifications"} {
		var last any
		defer func() {
			if t.Failed() {
				t.Logf("%s: last status %+v", name, last)
			}
		}()
		eventually(t, 20*time.Second, func() bool {
			s := processorStatus(t, a, name)
			last = s
			if name == "notifications" { // its last error is the erased member's email, parked
				return s.Lag == 0 && s.Parked == 1 && (s.LastError == nil || strings.Contains(*s.LastError, "erased"))
			}
			return s.Lag == 0 && s.LastError == nil && s.Generation == 1
		}, "%s caught up without an error", name)
	}
	toErin := 0
	for _, m := range smtp.Messages() {
		if len(m.To) == 1 && m.To[0] == erinEmail {
			toErin++
		}
	}
	assert.Equal(t, 1, toErin, "loan-1's email, sent before the erasure; nothing for loan-2")
	smtp.WaitForMessages(t, 2, 20*time.Second) // and fred's

	fred := getAccount(t, a, "m-fred")
	assert.Equal(t, "Fred Quillfeather", *fred.Name, "everyone else's data is intact")

	pool := pgtest.Connect(t, databaseURL)
	var raw string
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT string_agg(data::text || metadata::text, ' ') FROM events`).Scan(&raw))
	dump := pgtest.Dump(t, databaseURL)
	for _, secret := range []string{erinName, "Zweistein", erinEmail, "erin.zweistein", erinAddress, "Erin Q. Member"} {
		assert.NotContains(t, raw, secret, "the events' raw bytes")
		assert.NotContains(t, dump, secret, "the database's dump")
	}
	for _, there := range []string{"loan-3", "m-fred", "Dune"} {
		assert.Contains(t, dump, there, "the dump holds what it should")
	}
	assert.NotContains(t, dump, "Quillfeather", "nor anyone's name in the clear: names are sealed")
}
