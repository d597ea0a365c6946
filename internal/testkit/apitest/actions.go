package apitest

import (
	"fmt"
	"hash/fnv"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Actions the feature tests and the wiring tests share: each one request, its answer checked.

// AddBook adds the book id (Dune, by Frank Herbert, with an ISBN of its own) and checks its 201.
func AddBook(t *testing.T, a *API, id string) Result {
	t.Helper()
	r := a.Call(t, http.MethodPost, "/books", Obj{"id": id, "title": "Dune", "author": "Frank Herbert", "isbn": ISBNFor(id)})
	return RequireResult(t, r, http.StatusCreated, "book-"+id)
}

// ISBNFor is the ISBN-13 AddBook gives a book: one of its own, so that each book AddBook adds is
// the one copy of a title of its own, whose stream is TitleStreamOf(id).
func ISBNFor(id string) string {
	h := fnv.New64a()
	h.Write([]byte(id))
	digits := fmt.Sprintf("978%09d", h.Sum64()%1_000_000_000)
	sum := 0
	for i, d := range digits {
		sum += int(d-'0') * (1 + 2*(i%2))
	}
	return digits + strconv.Itoa((10-sum%10)%10)
}

// TitleStreamOf is the stream of the title of a book AddBook added, where its holds wait.
func TitleStreamOf(id string) string { return "title-isbn-" + ISBNFor(id) }

// Lend lends bookID to memberID under loanID and checks its 201.
func Lend(t *testing.T, a *API, bookID, loanID, memberID string) Result {
	t.Helper()
	r := a.Call(t, http.MethodPost, "/books/"+bookID+"/loans", Obj{"loanId": loanID, "memberId": memberID})
	return RequireResult(t, r, http.StatusCreated, "book-"+bookID)
}

// RequireReplay checks that again is the first answer repeated: same status, the same body
// byte for byte, and Idempotent-Replayed: true, which the first answer did not have.
func RequireReplay(t *testing.T, first, again Response) {
	t.Helper()
	assert.Empty(t, first.Header.Get("Idempotent-Replayed"), "the first answer is not a replay")
	require.Equal(t, first.Status, again.Status)
	require.Equal(t, string(first.Body), string(again.Body), "a replay is the first body, byte for byte")
	require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
}

// Account is GET /accounts/{memberId}.
type Account struct {
	MemberID string  `json:"memberId"`
	Name     *string `json:"name"`
	Email    *string `json:"email"`
	// EmailFrom is where the address came from: "provider", "staff", or null.
	EmailFrom *string `json:"emailFrom"`
	Balance   int64   `json:"balance"`
	// CardNumber is the member's library card, null for none; PINSet whether they have a PIN.
	CardNumber *string `json:"cardNumber"`
	PINSet     bool    `json:"pinSet"`
	Version    int64   `json:"version"`
}

// GetAccount is GET /accounts/{memberID}, its members checked.
func GetAccount(t *testing.T, a *API, memberID string) Account {
	t.Helper()
	r := a.Get(t, "/accounts/"+memberID)
	RequireKeys(t, r.Body, "memberId", "name", "email", "emailFrom", "balance", "cardNumber", "pinSet", "version")
	var acc Account
	RequireJSON(t, r, &acc)
	return acc
}

// Fine charges memberID a fine and checks its 201.
func Fine(t *testing.T, a *API, memberID string, amount int64, reason string) Result {
	t.Helper()
	r := a.Call(t, http.MethodPost, "/accounts/"+memberID+"/fines", Obj{"amount": amount, "reason": reason})
	return RequireResult(t, r, http.StatusCreated, "account-"+memberID)
}

// Pay pays amount (any JSON value, to test bad ones) into memberID's account under key.
func Pay(t *testing.T, a *API, memberID string, amount any, key string) Response {
	t.Helper()
	return a.Call(t, http.MethodPost, "/accounts/"+memberID+"/payments", Obj{"amount": amount}, "Idempotency-Key", key)
}

// SetContact opens memberID's account, or changes it, with name and email ("" for none).
func SetContact(t *testing.T, a *API, memberID, name, email string) {
	t.Helper()
	body := Obj{"name": name}
	if email != "" {
		body["email"] = email
	}
	r := a.Call(t, http.MethodPut, "/accounts/"+memberID, body)
	require.Contains(t, []int{http.StatusOK, http.StatusCreated}, r.Status, "body: %s", r.Body)
}

// Loan is a book's current loan, as GET /books and GET /books/{bookId} show it.
// MemberID is there for staff (or with sign-in off), Mine for a signed-in member.
type Loan struct {
	LoanID   string `json:"loanId"`
	MemberID string `json:"memberId,omitempty"`
	Mine     *bool  `json:"mine,omitempty"`
	LentAt   string `json:"lentAt"`
	DueAt    string `json:"dueAt"`
}

// Book is a book as GET /books and GET /books/{bookId} show it.
type Book struct {
	ID string `json:"id"`
	// TitleID is given where the book is read from its own stream (GET /books/{bookId}).
	TitleID string `json:"titleId"`
	Title   string `json:"title"`
	Author  string `json:"author"`
	Status  string `json:"status"`
	Loan    *Loan  `json:"loan"`
	Version int64  `json:"version"`
}

// CatalogList is the answer of GET /books.
type CatalogList struct {
	Books    []Book  `json:"books"`
	Position int64   `json:"position"`
	Next     *string `json:"next"`
}
