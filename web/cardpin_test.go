package web_test

// A library card given at the desk, and a PIN the member sets on their own page: what a
// self-check kiosk will know them by.

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
)

// A librarian gives alice a card on her page (a number bob has is refused, and says whose it
// is); alice sees it on My account, where she sets her PIN: two PINs that differ, and one that
// is not digits, are refused in a sentence, and the PIN she sets is in no event of the log.
// Both pages have no violation axe-core finds.
func TestLibraryCardAndPIN(t *testing.T) {
	t.Parallel()
	databaseURL := pgtest.NewDatabase(t)
	db := pgtest.Connect(t, databaseURL)
	p := apitest.StartProvider(t)
	base := startService(t, apitest.WithSignIn(app.Config{DatabaseURL: databaseURL, WebUI: true}, p))
	libby := p.Bearer(t, "libby")
	mustCallAs(t, libby, http.MethodPut, base+"/accounts/alice", map[string]any{"name": "Alice Liddell"}, http.StatusCreated)
	mustCallAs(t, libby, http.MethodPut, base+"/accounts/bob/card", map[string]any{"cardNumber": "LIB-7"}, http.StatusCreated)

	desk := newTab(t)
	desk.open(base + "/#/members/alice")
	signIn(desk, "libby")
	desk.get("heading", "Alice Liddell")
	card := desk.get("region", "Library card")
	card.get("textbox", "Card number").fill("lib-7")
	card.get("button", "Save card").click()
	card.get("alert", "").waitText("Card taken: card number LIB-7 is already recorded for account-bob.")
	card.get("textbox", "Card number").fill("lib-0042")
	card.get("button", "Save card").click()
	card.get("status", "").waitText("Library card LIB-0042 saved.")
	desk.waitText("region", "Account", "LIB-0042")
	desk.row("History", "Library card LIB-0042 given", "By", "libby (librarian)")
	requireAccessible(desk, "a member's page with their library card")

	member := newTab(t)
	member.open(base + "/#/account")
	signIn(member, "alice")
	member.waitText("region", "Account", "LIB-0042")
	member.waitText("region", "Account", "not set")
	pin := member.get("region", "PIN for self-check")
	setPIN := func(first, again string) {
		pin.get("textbox", "New PIN").fill(first)
		pin.get("textbox", "New PIN again").fill(again)
		pin.get("button", "Set PIN").click()
	}
	setPIN("4829", "4828")
	pin.get("alert", "").waitText("The two PINs are not the same")
	setPIN("48a9", "48a9")
	pin.get("alert", "").waitText("A PIN is 4 to 8 digits (0 to 9), and nothing else.")
	setPIN("482916", "482916")
	pin.get("status", "").waitText("Your PIN is set.")
	member.waitFor("the account to say the PIN is set", func() bool {
		return !strings.Contains(member.get("region", "Account").text(), "not set")
	})
	member.row("History", "PIN for self-check set", "By", "alice (member)")
	for _, field := range []string{"New PIN", "New PIN again"} {
		if v, err := pin.get("textbox", field).call(`function() { return this.value; }`); err != nil || v != "" {
			t.Fatalf("%s holds %q (%v) once the PIN is set, want it empty", field, v, err)
		}
	}
	requireAccessible(member, "My account with the PIN form")

	var account struct {
		CardNumber string `json:"cardNumber"`
		PINSet     bool   `json:"pinSet"`
	}
	if err := json.Unmarshal(mustCallAs(t, libby, http.MethodGet, base+"/accounts/alice", nil, http.StatusOK), &account); err != nil {
		t.Fatal(err)
	}
	if account.CardNumber != "LIB-0042" || !account.PINSet {
		t.Fatalf("alice's account: %+v, want card LIB-0042 and a PIN", account)
	}
	if n := countEvents(t, db, "account-alice", "PINSet"); n != 1 {
		t.Fatalf("%d PINSet events, want 1", n)
	}
	var leaks int
	if err := db.QueryRow(context.Background(),
		`SELECT count(*) FROM events WHERE strpos(data::text, '482916') > 0 OR strpos(metadata::text, '482916') > 0`).Scan(&leaks); err != nil || leaks != 0 {
		t.Fatalf("%d events hold the PIN (%v)", leaks, err)
	}
}
