package holdshelf_test

// The hold shelf through the service, on both stores, with a real SMTP server. Timers go by
// the database's clock in PostgreSQL, so the service runs on the wall clock and holds last
// seconds.

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/smtptest"
)

// shelfConfig is a service sending to smtp, with holds of pickup, on the wall clock.
func shelfConfig(smtp *smtptest.Server, pickup time.Duration) app.Config {
	cfg := apitest.FastBackground(app.Config{SMTPURL: smtp.URL(), MailFrom: "desk@library.test", HoldPickup: pickup})
	cfg.Tuning.Now = time.Now
	return cfg
}

// hold places memberID's hold on bookID under key and returns the answer.
func hold(t *testing.T, a *apitest.API, bookID, memberID, key string) apitest.Response {
	t.Helper()
	return a.Call(t, http.MethodPost, "/books/"+bookID+"/holds", apitest.Obj{"memberId": memberID}, "Idempotency-Key", key)
}

// types are the types of the events a command recorded.
func types(r apitest.Result) []string {
	var out []string
	for _, e := range r.Events {
		out = append(out, e.Type)
	}
	return out
}

// heldFor is the member a result's BookHeld is for, "" without one.
func heldFor(t *testing.T, r apitest.Result) string {
	t.Helper()
	for _, e := range r.Events {
		if e.Type == "BookHeld" {
			var held struct {
				MemberID string `json:"memberId"`
			}
			require.NoError(t, json.Unmarshal(e.Data, &held))
			return held.MemberID
		}
	}
	return ""
}

// pickups are the "Ready for pickup" emails to addr.
func pickups(smtp *smtptest.Server, addr string) []smtptest.Message {
	var out []smtptest.Message
	for _, m := range smtp.Messages() {
		if len(m.To) == 1 && m.To[0] == addr && strings.HasPrefix(m.Subject, "Ready for pickup") {
			out = append(out, m)
		}
	}
	return out
}

// A return with a queue holds the book for the first in line, who is emailed once; no one
// else may borrow it; not picked up in HOLD_PICKUP, it goes to the next, who is emailed and
// borrows it, which fulfils the hold and leaves no timer.
func TestHTTPTheShelfMovesOn(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	apitest.ForEachStore(t, shelfConfig(smtp, 2*time.Second), func(t *testing.T, a *apitest.API) {
		ann, ben := "ann-"+a.Store, "ben-"+a.Store
		apitest.SetContact(t, a, ann, "Ann", ann+"@example.org")
		apitest.SetContact(t, a, ben, "Ben", ben+"@example.org")
		apitest.AddBook(t, a, "dune")
		apitest.Lend(t, a, "dune", "loan-1", "carol")
		apitest.RequireResult(t, hold(t, a, "dune", ann, "h1"), http.StatusCreated, apitest.TitleStreamOf("dune"))
		apitest.RequireResult(t, hold(t, a, "dune", ben, "h2"), http.StatusCreated, apitest.TitleStreamOf("dune"))

		back := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune/returns", apitest.Obj{"loanId": "loan-1"}), http.StatusCreated, "book-dune")
		assert.Equal(t, []string{"BookReturned", "BookHeld"}, types(back))
		assert.Equal(t, ann, heldFor(t, back), "the first in line")
		lendBen := a.Call(t, http.MethodPost, "/books/dune/loans", apitest.Obj{"loanId": "loan-2", "memberId": ben})
		apitest.RequireProblem(t, lendBen, http.StatusConflict, "BookOnHold")

		apitest.Eventually(t, 15*time.Second, func() bool { return len(pickups(smtp, ben+"@example.org")) == 1 },
			"ann's hold expires and ben is told the book waits for him")
		got := pickups(smtp, ann+"@example.org")
		require.Len(t, got, 1, "ann is told once")
		assert.Equal(t, "Ready for pickup: Dune", got[0].Subject)
		assert.Contains(t, got[0].Body, "Hello Ann,")
		assert.Contains(t, got[0].Body, "waits for you at the desk until")

		lent := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune/loans", apitest.Obj{"loanId": "loan-2", "memberId": ben}), http.StatusCreated, "book-dune")
		assert.Equal(t, []string{"BookLent", "HoldFulfilled"}, types(lent))
		apitest.Eventually(t, 10*time.Second, func() bool {
			s := apitest.ProcessorStatus(t, a, "hold-shelf")
			return s.Lag == 0 && s.Timers != nil && s.Timers.Waiting == 0
		}, "ben's hold's timer cancelled")
		assert.Len(t, pickups(smtp, ben+"@example.org"), 1, "ben is told once")
		assert.Len(t, pickups(smtp, ann+"@example.org"), 1, "ann once, however long it has been")
	})
}
