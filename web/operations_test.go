package web_test

// The operations page watches two processes of the built binary on one database: which one
// holds each lease, and, after the holder is killed with SIGKILL, that the other took over.

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"library/internal/testkit/pgtest"
	"library/internal/testkit/proctest"
)

// parkedForAnAddress is what the operations page says of a loan email parked because its
// member has no address: the reason GET /admin/processors/notifications/parked gives, which
// /status does not (its lastError is gone once a later event is handled).
const parkedForAnAddress = ", because the member has no email address yet"

// processors are the background processors every replica runs: a view model by its view's
// name, each of the others by its own.
var processors = []string{"catalog", "loans", "holds", "notifications", "late-fines", "hold-shelf", "adoption"}

// processorStatus is what these tests read of one entry of /status: a processor, or a build
// of a view model (named view@n after the first; a new version of a view's code builds one).
type processorStatus struct {
	Name       string `json:"name"`
	View       string `json:"view"`
	State      string `json:"state"`
	HoldsLease bool   `json:"holdsLease"`
}

// running reads p's /status: the name of each processor that runs (a retired build does not),
// by the view or processor it is, or nil when p does not answer.
func running(p *proctest.Process) map[string]processorStatus {
	a, err := proctest.Call(client, http.MethodGet, p.URL("/status"), "")
	if err != nil || a.Status != http.StatusOK {
		return nil
	}
	var status struct {
		Processors []processorStatus `json:"processors"`
	}
	if json.Unmarshal([]byte(a.Body), &status) != nil {
		return nil
	}
	out := map[string]processorStatus{}
	for _, s := range status.Processors {
		if s.State == "retired" {
			continue
		}
		what := s.Name
		if s.View != "" {
			what = s.View
		}
		if s.View == "" || s.State == "answering" || out[what].Name == "" {
			out[what] = s
		}
	}
	return out
}

// freeAddr is a loopback address with a port free right now, for a process to listen on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := new(net.ListenConfig).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// holdsAll reports whether the process says it holds every processor's lease (each running
// build's, for a view model).
func holdsAll(p *proctest.Process) bool {
	run := running(p)
	for _, name := range processors {
		if !run[name].HoldsLease {
			return false
		}
	}
	return true
}

// names are the names the page gives processors: a view model's answering build's.
func names(t *testing.T, p *proctest.Process) []string {
	t.Helper()
	run := running(p)
	out := make([]string, 0, len(processors))
	for _, name := range processors {
		if run[name].Name == "" {
			t.Fatalf("%s: no %s in /status", p.URL("/status"), name)
		}
		out = append(out, run[name].Name)
	}
	return out
}

// The page is served by the first process ("holder"), which holds every lease and names the
// second ("standby") in OPERATIONS_REPLICAS; standby allows that page's origin (CORS_ORIGINS).
// The page watches both, and shows holder as the holder of every lease, and both replicas up;
// an address that is not one of them can't be added. Retry parked goes to the
// holder with the admin token typed into the page, which stores it nowhere. Then the holder is
// killed with SIGKILL: the page, still open, shows standby holding every lease and holder
// unreachable.
func TestOperationsShowsTheHolderAndTheTakeover(t *testing.T) {
	t.Parallel()
	buildBinary(t)
	// EMAIL_ADDRESS_WAIT: the loan's email waits a millisecond for its member's address, then is parked.
	env := []string{"DATABASE_URL=" + pgtest.NewDatabase(t), "ADMIN_TOKEN=" + adminToken, "LEASE_RETRY_INTERVAL=100ms", "EMAIL_ADDRESS_WAIT=1ms"}
	standbyAddr := freeAddr(t) // holder must name standby before standby starts
	holder := proctest.Start(t, append(env, "REPLICA_ID=holder", "OPERATIONS_REPLICAS=http://"+standbyAddr)...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("holder's log:\n%s", holder.Output())
		}
	})
	deadline := time.Now().Add(waitTimeout)
	for !holdsAll(holder) {
		if time.Now().After(deadline) {
			t.Fatalf("the first process did not take every lease:\n%s", holder.Output())
		}
		time.Sleep(pollInterval) // polling /status, bounded by the deadline
	}
	standby := proctest.Start(t, append(env, "REPLICA_ID=standby", "HTTP_ADDR="+standbyAddr, "CORS_ORIGINS=http://"+holder.Addr())...)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("standby's log:\n%s", standby.Output())
		}
	})
	holderURL, standbyURL := holder.URL(""), standby.URL("")
	// A loan to a member with no email address: its email is parked once its wait is over, for
	// Retry parked to send.
	addBooks(t, holderURL, "dune|Dune|Frank Herbert", "emma|Emma|Jane Austen")
	mustCall(t, http.MethodPost, holderURL+"/books/dune/loans", map[string]string{"loanId": "loan-1", "memberId": "alice"}, http.StatusCreated)

	tb := newTab(t)
	tb.open(holderURL + "/#/operations")
	tb.get("textbox", "Replica addresses").fill(holderURL + "\nhttp://127.0.0.1:1")
	tb.get("button", "Watch these replicas").click()
	tb.waitText("region", "Replicas to watch", "http://127.0.0.1:1 is not one of this library's replicas")
	tb.get("textbox", "Replica addresses").fill(holderURL + "\n" + standbyURL)
	tb.get("button", "Watch these replicas").click()
	shown := names(t, holder)
	for _, name := range shown {
		tb.row("Background work", name, "Lease held by", "holder")
	}
	tb.row("Background work", "notifications", "Parked", "1")
	tb.row("Background work", running(holder)["catalog"].Name, "Checkpoint", "9 of 9") // two books, each with its title and its copy on it; a loan on the book, its title and the account
	tb.row("Replicas", holderURL, "State", "up")
	tb.row("Replicas", standbyURL, "State", "up")
	// Why the email is parked takes the admin token: the page says so, and then says why.
	tb.row("Background work", "notifications", "Last error", "1 parked: type the admin token below to see why.")

	tb.get("textbox", "Admin token").fill(adminToken) // a password field is a textbox to assistive technology
	tb.row("Background work", "notifications", "Last error", parkedForAnAddress)
	tb.get("button", "Retry parked notifications").click()
	tb.get("status", "Admin action").waitText("1 parked event of notifications sent back to be handled, on holder.")
	stored, err := tb.eval(`JSON.stringify([localStorage, sessionStorage, document.cookie, location.href])`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stored, adminToken) {
		t.Fatalf("the admin token is stored: %s", stored)
	}
	screenshot(tb, "operations")

	holder.Kill()
	for _, name := range shown {
		tb.row("Background work", name, "Lease held by", "standby")
	}
	tb.row("Replicas", holderURL, "State", "unreachable")
	tb.row("Replicas", standbyURL, "State", "up")
}
