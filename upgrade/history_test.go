//go:build upgrade

package upgrade

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"library/internal/testkit/proctest"
)

// client speaks to one process of the service.
type client struct {
	t    *testing.T
	p    *proctest.Process
	http *http.Client
}

// do sends a request and fails the test unless it is answered with one of want.
func (c client) do(want []int, method, path, body string, headers ...string) proctest.Answer {
	c.t.Helper()
	a, err := proctest.Call(c.http, method, c.p.URL(path), body, headers...)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	for _, status := range want {
		if a.Status == status {
			return a
		}
	}
	c.t.Fatalf("%s %s answered %d, want %v: %s", method, path, a.Status, want, a.Body)
	return a
}

func (c client) created(method, path, body string, headers ...string) proctest.Answer {
	c.t.Helper()
	return c.do([]int{http.StatusCreated}, method, path, body, headers...)
}

// members are the library's members in the history: the erased one asked to be forgotten.
var members = []string{"ann", "ben", "cat", "dan", "erased"}

// books are the books in the history: three copies of one book, and another.
var books = []struct{ id, title, author string }{
	{"dune-1", "Dune", "Frank Herbert"},
	{"dune-2", "Dune", "Frank Herbert"},
	{"dune-3", "Dune ", "frank herbert"},
	{"emma", "Emma", "Jane Austen"},
}

// writeHistory writes, through the API of the release before, a library's life: members,
// books, loans, a renewal, a late return's fine and one charged by hand, payments at the desk,
// holds on a book that is out, one of them cancelled, and a member erased once settled.
func writeHistory(c client) {
	c.t.Helper()
	for _, m := range members {
		c.created(http.MethodPut, "/accounts/"+m, fmt.Sprintf(`{"name":"Member %s","email":"%s@example.org"}`, m, m))
	}
	for _, b := range books {
		c.created(http.MethodPost, "/books", fmt.Sprintf(`{"id":%q,"title":%q,"author":%q}`, b.id, b.title, b.author))
	}
	lend := func(book, loan, member string) {
		c.created(http.MethodPost, "/books/"+book+"/loans", fmt.Sprintf(`{"loanId":%q,"memberId":%q}`, loan, member))
	}
	lend("dune-1", "loan-1", "ann")
	lend("emma", "loan-2", "ben")
	lend("dune-2", "loan-3", "erased")
	c.created(http.MethodPost, "/books/dune-1/loans/loan-1/renewals", "", "Idempotency-Key", "renew-1")
	c.created(http.MethodPost, "/books/dune-2/returns", `{"loanId":"loan-3"}`)
	c.created(http.MethodPost, "/accounts/ben/fines", `{"amount":250,"reason":"a torn page"}`)
	c.created(http.MethodPost, "/accounts/ben/payments", `{"amount":100}`, "Idempotency-Key", "pay-ben-1")
	for _, m := range []string{"cat", "dan", "ben"} {
		c.created(http.MethodPost, "/books/dune-1/holds", fmt.Sprintf(`{"memberId":%q}`, m), "Idempotency-Key", "hold-"+m)
	}
	c.created(http.MethodDelete, "/books/dune-1/holds/ben", "")
	c.do([]int{http.StatusOK, http.StatusCreated}, http.MethodPost, "/accounts/erased/erasure", "")
}

// status is the process's GET /status.
func (c client) status() string {
	c.t.Helper()
	return c.do([]int{http.StatusOK}, http.MethodGet, "/status", "").Body
}

// caughtUp waits until every processor of the process has read the whole log.
func caughtUp(c client) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		a, err := proctest.Call(c.http, http.MethodGet, c.p.URL("/status"), "")
		if err == nil && a.Status == http.StatusOK && allCaughtUp(a.Body) {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the processors did not catch up within 30s: %s", a.Body)
		}
		time.Sleep(50 * time.Millisecond) // polling /status, bounded by the deadline
	}
}
