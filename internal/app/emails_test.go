package app_test

// Loan emails through a real SMTP server in the test process, on both stores.

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/smtptest"
)

func setContact(t *testing.T, a *api, memberID, name, email string) {
	t.Helper()
	body := obj{"name": name}
	if email != "" {
		body["email"] = email
	}
	r := a.call(t, http.MethodPut, "/accounts/"+memberID, body)
	require.Contains(t, []int{http.StatusOK, http.StatusCreated}, r.Status, "body: %s", r.Body)
}

// One email per loan: to the account's email, from MAIL_FROM, with the subject and a
// Message-ID made from the outbox and the event.
func TestLoanEmail(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	cfg := fastBackground(app.Config{SMTPURL: smtp.URL(), MailFrom: "desk@library.test"})
	forEachStore(t, cfg, func(t *testing.T, a *api) {
		member := "alice-" + a.store
		setContact(t, a, member, "Alice", member+"@example.org")
		r := a.call(t, http.MethodPost, "/books", obj{"id": "dune", "title": "Dune", "author": "Frank Herbert"})
		requireResult(t, r, http.StatusCreated, "book-dune")
		lent := lend(t, a, "dune", "loan-1", member)

		var got smtptest.Message
		eventually(t, 10*time.Second, func() bool {
			for _, m := range smtp.Messages() {
				if m.To[0] == member+"@example.org" {
					got = m
					return true
				}
			}
			return false
		}, "the loan email")
		assert.Equal(t, []string{member + "@example.org"}, got.To)
		assert.Equal(t, "desk@library.test", got.From)
		assert.Equal(t, "You borrowed Dune", got.Subject)
		requireMessageID(t, got.MessageID, lent.Position, "library.test")
		assert.Contains(t, got.Body, "Frank Herbert")
		assert.Contains(t, got.Body, "loan-1")

		// Lending again under the same loan records nothing, so sends nothing.
		again := a.call(t, http.MethodPost, "/books/dune/loans", obj{"loanId": "loan-1", "memberId": member})
		requireResult(t, again, http.StatusOK, "book-dune")
		caughtUp(t, a, "notifications")
		count := 0
		for _, m := range smtp.Messages() {
			if m.To[0] == member+"@example.org" {
				count++
			}
		}
		assert.Equal(t, 1, count, "one email per loan")
	})
}

// A loan to a member with no email is parked at once with that reason; retry-parked sends it
// once the member has an address.
func TestLoanEmailWithoutAddressIsParked(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	forEachStore(t, fastBackground(app.Config{SMTPURL: smtp.URL()}), func(t *testing.T, a *api) {
		member := "bob-" + a.store
		setContact(t, a, member, "Bob", "")
		addBook(t, a, "emma")
		lend(t, a, "emma", "loan-1", member)

		var s = caughtUp(t, a, "notifications")
		require.Equal(t, 1, s.Parked)
		require.NotNil(t, s.LastError)
		assert.Contains(t, *s.LastError, "no email address")

		setContact(t, a, member, "Bob", member+"@example.org")
		r := admin(t, a, "notifications", "retry-parked")
		require.Equal(t, http.StatusAccepted, r.Status)
		assert.JSONEq(t, `{"requeued":1}`, string(r.Body))
		eventually(t, 10*time.Second, func() bool {
			for _, m := range smtp.Messages() {
				if m.To[0] == member+"@example.org" {
					return true
				}
			}
			return false
		}, "the parked email to be sent")
		eventually(t, 10*time.Second, func() bool { return processorStatus(t, a, "notifications").Parked == 0 }, "nothing parked")
	})
}

// An SMTP server that refuses mail: each email is tried Attempts times, then parked; nothing
// is skipped, and retry-parked delivers every one of them once the server takes mail again.
func TestLoanEmailsRetriedParkedAndRequeued(t *testing.T) {
	t.Parallel()
	for _, store := range stores {
		t.Run(store.name, func(t *testing.T) {
			t.Parallel()
			// Each store gets its own SMTP server, so that its counts are its own.
			smtp := smtptest.Start(t)
			cfg := fastBackground(app.Config{SMTPURL: smtp.URL(), DatabaseURL: store.databaseURL(t)})
			testEmailsParkedAndRequeued(t, &api{base: startService(t, cfg), store: store.name}, smtp)
		})
	}
}

func testEmailsParkedAndRequeued(t *testing.T, a *api, smtp *smtptest.Server) {
	{

		setContact(t, a, "carol", "Carol", "carol@example.org")
		smtp.Refuse(451, "try again later")
		const loans = 3
		for i := range loans {
			addBook(t, a, fmt.Sprintf("book-%d", i))
			lend(t, a, fmt.Sprintf("book-%d", i), fmt.Sprintf("loan-%d", i), "carol")
		}
		eventually(t, 20*time.Second, func() bool {
			s := processorStatus(t, a, "notifications")
			return s.Parked == loans && s.Lag == 0
		}, "every email to be parked")
		assert.Empty(t, smtp.Messages())
		assert.Equal(t, 3*loans, smtp.Attempts("carol@example.org"), "each email was tried 3 times")
		assert.LessOrEqual(t, smtp.Connections(), loans, "a refusal with a clean reply leaves the connection usable")
		s := processorStatus(t, a, "notifications")
		require.NotNil(t, s.LastError)
		assert.Contains(t, *s.LastError, "451")

		smtp.Refuse(0, "")
		r := admin(t, a, "notifications", "retry-parked")
		require.Equal(t, http.StatusAccepted, r.Status)
		assert.JSONEq(t, fmt.Sprintf(`{"requeued":%d}`, loans), string(r.Body))
		got := smtp.WaitForMessages(t, loans, 10*time.Second)
		ids := map[string]bool{}
		for _, m := range got {
			ids[m.MessageID] = true
		}
		assert.Len(t, ids, loans, "every loan once")
		eventually(t, 10*time.Second, func() bool { return processorStatus(t, a, "notifications").Parked == 0 }, "nothing parked")
		assert.Len(t, smtp.Messages(), loans, "nothing sent twice")
	}
}
