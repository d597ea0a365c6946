//go:build upgrade

package upgrade

import (
	"encoding/json"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"library/internal/testkit/pgtest"
	"library/internal/testkit/proctest"
)

// A library's log written by the release before is read by this build as it is: no manual
// step, no rewrite. Every read answers what the release before answered (this build may say
// more), but for the holds: every book is a copy of a title, the three Dune by Frank Herbert
// copies of one; the holds on dune-1 are holds on Dune, filled by the copies that stood on the
// shelf; the holds view and the catalog, whose code is of a newer version, are built beside the
// release before's and take over from them, and the catalog finds Dune as one title; and the
// library goes on: each member borrows the copy held for them, and nobody else
// may; the fines are paid; the erased member stays erased.
func TestALogOfTheReleaseBeforeWorksUnderThisOne(t *testing.T) {
	env := []string{"DATABASE_URL=" + pgtest.NewDatabase(t)}
	h := &http.Client{Timeout: 10 * time.Second}

	old := client{t: t, p: proctest.StartBinary(t, before, env...), http: h}
	writeHistory(old)
	caughtUp(old)
	was := read(old)
	wrote(t, was)
	if err := old.p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := old.p.Wait(t, 30*time.Second); err != nil {
		t.Fatalf("the release before did not stop cleanly: %v\n%s", err, old.p.Output())
	}

	now := client{t: t, p: proctest.Start(t, env...), http: h}
	everyBookIsACopy(now)
	holdsOnTheCopy(now)
	caughtUp(now)
	for _, view := range []string{"holds", "catalog"} {
		if status := now.status(); rebuilt(status)[view] < 2 { // the release before's are version 1
			t.Errorf("the %s view of this build's version was not built beside the release before's: %s", view, status)
		}
	}
	catalogOfTitles(now)
	is := read(now)
	for _, path := range routes() {
		if reshaped(path) {
			continue
		}
		if was[path].Status != is[path].Status {
			t.Errorf("GET %s: %d became %d: %s", path, was[path].Status, is[path].Status, short(is[path].Body))
			continue
		}
		if d := within(was[path].Body, is[path].Body, "GET "+path); d != "" {
			t.Errorf("%s\nbefore: %s\nnow:    %s", d, short(was[path].Body), short(is[path].Body))
		}
	}

	goesOn(now)
}

// catalogOfTitles checks the catalog members search: the three Dune books are one title with
// three copies.
func catalogOfTitles(c client) {
	c.t.Helper()
	var page struct {
		Titles []struct {
			ID     string `json:"id"`
			Counts struct {
				Total int `json:"total"`
			} `json:"counts"`
		} `json:"titles"`
	}
	body := c.do([]int{http.StatusOK}, http.MethodGet, "/titles?q=dune", "").Body
	if err := json.Unmarshal([]byte(body), &page); err != nil {
		c.t.Fatalf("GET /titles?q=dune: %v: %s", err, body)
	}
	if len(page.Titles) != 1 || page.Titles[0].Counts.Total != 3 {
		c.t.Errorf("GET /titles?q=dune: want one title with 3 copies: %s", body)
	}
}

// goesOn carries on the history written by the release before with this build.
func goesOn(c client) {
	c.t.Helper()
	c.created(http.MethodPost, "/books/dune-1/returns", `{"loanId":"loan-1"}`)
	c.do([]int{http.StatusConflict}, http.MethodPost, "/books/dune-2/loans", `{"loanId":"loan-9","memberId":"dan"}`)
	c.created(http.MethodPost, "/books/dune-2/loans", `{"loanId":"loan-4","memberId":"cat"}`)
	c.created(http.MethodPost, "/accounts/ben/payments", `{"amount":150}`, "Idempotency-Key", "pay-ben-2")
	c.created(http.MethodPost, "/books/emma/returns", `{"loanId":"loan-2"}`)
	c.do([]int{http.StatusGone}, http.MethodGet, "/accounts/erased", "")
	c.do([]int{http.StatusCreated}, http.MethodPost, "/books/dune-3/loans", `{"loanId":"loan-5","memberId":"dan"}`)
}

// wrote checks that the release before answered the history as it was written, so that
// comparing with its answers proves something.
func wrote(t *testing.T, was map[string]answer) {
	t.Helper()
	for path, want := range map[string]string{
		"/accounts/ben":         `"balance":150`,
		"/books/dune-1":         `"memberId":"ann"`,
		"/accounts/erased":      `"Gone"`,
		"/holds?status=waiting": `"memberId":"dan"`,
	} {
		if got := short(was[path].Body); !strings.Contains(got, want) {
			t.Fatalf("the release before answered GET %s with %s, without %s", path, got, want)
		}
	}
}
