package app_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/smtptest"
)

// exportView is the part of GET /accounts/{memberId}/export these tests read.
type exportView struct {
	Loans []struct {
		BookID     string  `json:"bookId"`
		LoanID     string  `json:"loanId"`
		ReturnedAt *string `json:"returnedAt"`
	} `json:"loans"`
	Emails []struct {
		MessageID string `json:"messageId"`
		LoanID    string `json:"loanId"`
	} `json:"emails"`
}

// A loan id is a book's own: another book may lend under the same one to another member. A
// member's export lists the emails of their own loans only, not those of another member's loan
// that shares a loan id with one of theirs.
func TestExportListsOnlyTheMembersOwnEmails(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	forEachStore(t, fastBackground(app.Config{SMTPURL: smtp.URL()}), func(t *testing.T, a *api) {
		setContact(t, a, "m-ann", "Ann Reader", "ann@example.org")
		setContact(t, a, "m-bob", "Bob Reader", "bob@example.org")
		addBook(t, a, "dune")
		addBook(t, a, "emma")
		anns := lend(t, a, "dune", "loan-1", "m-ann")
		bobs := lend(t, a, "emma", "loan-1", "m-bob")
		caughtUp(t, a, "notifications") // both emails sent and recorded

		for member, want := range map[string]result{"m-ann": anns, "m-bob": bobs} {
			var export exportView
			r := a.Get(t, "/accounts/"+member+"/export")
			require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
			require.NoError(t, json.Unmarshal(r.Body, &export))
			require.Len(t, export.Loans, 1, member)
			require.Len(t, export.Emails, 1, "%s: the email of their own loan-1 only", member)
			assert.Equal(t, "loan-1", export.Emails[0].LoanID)
			assert.Equal(t, want.Position, emailPosition(t, export.Emails[0].MessageID),
				"%s: the email about their own BookLent", member)
		}
	})
}

// Without SMTP_URL a loan email is written to the log, not sent: the export lists no email, as
// none went out.
func TestExportListsNoEmailThatWasOnlyLogged(t *testing.T) {
	t.Parallel()
	forEachStore(t, fastBackground(app.Config{}), func(t *testing.T, a *api) {
		setContact(t, a, "m-ann", "Ann Reader", "ann@example.org")
		addBook(t, a, "dune")
		lend(t, a, "dune", "loan-1", "m-ann")
		caughtUp(t, a, "notifications") // the email written to the log

		r := a.Get(t, "/accounts/m-ann/export")
		require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
		var export exportView
		require.NoError(t, json.Unmarshal(r.Body, &export))
		require.Len(t, export.Loans, 1)
		require.Empty(t, export.Emails, "no email was sent: %s", r.Body)
	})
}

// A return is of one book's loan: a member with two books out under the same loan id who returns
// one still has the other out, in the export and for erasure.
func TestExportMatchesReturnsToTheirBook(t *testing.T) {
	t.Parallel()
	forEachStore(t, app.Config{}, func(t *testing.T, a *api) {
		setContact(t, a, "m-ann", "Ann Reader", "ann@example.org")
		addBook(t, a, "dune")
		addBook(t, a, "emma")
		lend(t, a, "dune", "loan-1", "m-ann")
		lend(t, a, "emma", "loan-1", "m-ann")
		requireResult(t, a.Call(t, http.MethodPost, "/books/dune/returns", obj{"loanId": "loan-1"}), http.StatusCreated, "book-dune")

		var export exportView
		r := a.Get(t, "/accounts/m-ann/export")
		require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
		require.NoError(t, json.Unmarshal(r.Body, &export))
		require.Len(t, export.Loans, 2)
		returned := map[string]bool{}
		for _, l := range export.Loans {
			returned[l.BookID] = l.ReturnedAt != nil
		}
		assert.Equal(t, map[string]bool{"dune": true, "emma": false}, returned)
		requireProblem(t, a.Call(t, http.MethodPost, "/accounts/m-ann/erasure", nil), http.StatusConflict, "AccountNotSettled")
	})
}
