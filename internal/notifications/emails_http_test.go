package notifications_test

// Loan emails through a real SMTP server in the test process, on both stores.

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/smtptest"
)

// One email per loan: to the account's email, from MAIL_FROM, with the subject and a
// Message-ID made from the outbox and the event.
func TestHTTPLoanEmail(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	cfg := apitest.FastBackground(app.Config{SMTPURL: smtp.URL(), MailFrom: "desk@library.test"})
	apitest.ForEachStore(t, cfg, func(t *testing.T, a *apitest.API) {
		member := "alice-" + a.Store
		apitest.SetContact(t, a, member, "Alice", member+"@example.org")
		r := a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": "dune", "title": "Dune", "author": "Frank Herbert"})
		apitest.RequireResult(t, r, http.StatusCreated, "book-dune")
		lent := apitest.Lend(t, a, "dune", "loan-1", member)

		var got smtptest.Message
		apitest.Eventually(t, 10*time.Second, func() bool {
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
		apitest.RequireMessageID(t, got.MessageID, lent.Position, "library.test")
		assert.Contains(t, got.Body, "Frank Herbert")
		assert.Contains(t, got.Body, "loan-1")

		// Lending again under the same loan records nothing, so sends nothing.
		again := a.Call(t, http.MethodPost, "/books/dune/loans", apitest.Obj{"loanId": "loan-1", "memberId": member})
		apitest.RequireResult(t, again, http.StatusOK, "book-dune")
		apitest.CaughtUp(t, a, "notifications")
		count := 0
		for _, m := range smtp.Messages() {
			if m.To[0] == member+"@example.org" {
				count++
			}
		}
		assert.Equal(t, 1, count, "one email per loan")
	})
}

// An SMTP server that refuses mail: each email is tried Attempts times, then parked; nothing
// is skipped, and retry-parked delivers every one of them once the server takes mail again.
func TestHTTPLoanEmailsRetriedParkedAndRequeued(t *testing.T) {
	t.Parallel()
	for _, store := range apitest.Stores {
		t.Run(store.Name, func(t *testing.T) {
			t.Parallel()
			// Each store gets its own SMTP server, so that its counts are its own.
			smtp := smtptest.Start(t)
			cfg := apitest.FastBackground(app.Config{SMTPURL: smtp.URL(), DatabaseURL: store.DatabaseURL(t)})
			testEmailsParkedAndRequeued(t, &apitest.API{Base: apitest.StartService(t, cfg), Store: store.Name}, smtp)
		})
	}
}

func testEmailsParkedAndRequeued(t *testing.T, a *apitest.API, smtp *smtptest.Server) {
	{

		apitest.SetContact(t, a, "carol", "Carol", "carol@example.org")
		smtp.Refuse(451, "try again later")
		const loans = 3
		for i := range loans {
			apitest.AddBook(t, a, fmt.Sprintf("book-%d", i))
			apitest.Lend(t, a, fmt.Sprintf("book-%d", i), fmt.Sprintf("loan-%d", i), "carol")
		}
		apitest.Eventually(t, 20*time.Second, func() bool {
			s := apitest.ProcessorStatus(t, a, "notifications")
			return s.Parked == loans && s.Lag == 0
		}, "every email to be parked")
		assert.Empty(t, smtp.Messages())
		assert.Equal(t, 3*loans, smtp.Attempts("carol@example.org"), "each email was tried 3 times")
		assert.LessOrEqual(t, smtp.Connections(), loans, "a refusal with a clean reply leaves the connection usable")
		s := apitest.ProcessorStatus(t, a, "notifications")
		require.NotNil(t, s.LastError)
		assert.Contains(t, *s.LastError, "451")

		smtp.Refuse(0, "")
		r := apitest.Admin(t, a, "notifications", "retry-parked")
		require.Equal(t, http.StatusAccepted, r.Status)
		assert.JSONEq(t, fmt.Sprintf(`{"requeued":%d}`, loans), string(r.Body))
		got := smtp.WaitForMessages(t, loans, 10*time.Second)
		ids := map[string]bool{}
		for _, m := range got {
			ids[m.MessageID] = true
		}
		assert.Len(t, ids, loans, "every loan once")
		apitest.Eventually(t, 10*time.Second, func() bool { return apitest.ProcessorStatus(t, a, "notifications").Parked == 0 }, "nothing parked")
		assert.Len(t, smtp.Messages(), loans, "nothing sent twice")
	}
}
