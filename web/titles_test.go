package web_test

// Titles in the web app: a librarian adds a title from the catalog, which lists it with no copy
// yet, and its copies by barcode on its page; a member places a hold on the title while every copy is out, and is told in the
// page's own words when the service refuses one; the librarian sees the title's queue, and the
// copy that comes back kept for the member first in line.

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
)

// copyByBarcode is the id of the copy with barcode, found as the desk's scanner finds it.
func copyByBarcode(t *testing.T, base, bearer, barcode string) string {
	t.Helper()
	var book struct{ ID string }
	if err := json.Unmarshal(mustCallAs(t, bearer, http.MethodGet, base+"/books?barcode="+url.QueryEscape(barcode), nil, http.StatusOK), &book); err != nil || book.ID == "" {
		t.Fatalf("the copy with barcode %s: %+v (%v)", barcode, book, err)
	}
	return book.ID
}

// titleQueue is GET /titles/{titleId}/holds.
type titleQueue struct {
	Waiting []struct {
		MemberID string `json:"memberId"`
		Place    int    `json:"place"`
	} `json:"waiting"`
	Ready []struct {
		MemberID string `json:"memberId"`
		BookID   string `json:"bookId"`
		Until    string `json:"until"`
	} `json:"ready"`
}

// The librarian adds Dune from the catalog and, on its page, two copies by barcode (a third
// with one of their barcodes is refused, naming the copy that has it). Both are lent. Alice,
// on the title's page, sees no copy on the shelf and presses Place hold just after one came
// back: refused, in the page's words, and the page says a copy is on the shelf. Once it is
// lent again she places the hold, under one Idempotency-Key, and the page says so and counts
// her; pressed again on the page drawn anew, it is refused as one she has. The librarian sees her first in line, waiting for any copy; when a copy comes back it
// is kept for her, on the hold shelf of the title's page, and her page says it waits for her.
func TestTitleHoldFromNewTitleToItsQueue(t *testing.T) {
	t.Parallel()
	base, p := signedInService(t)
	libby := p.Bearer(t, "libby")
	mustCallAs(t, libby, http.MethodPut, base+"/accounts/alice", map[string]any{"name": "Alice Liddell"}, http.StatusCreated)

	desk := newTab(t)
	desk.open(base + "/#/books")
	signIn(desk, "libby")
	add := desk.get("region", "Add a title")
	add.get("textbox", "Title").fill("Dune")
	add.get("textbox", "Authors, one per line").fill("Frank Herbert")
	add.get("textbox", "ISBN (optional)").fill("0-441-01359-7")
	add.get("textbox", "Year (optional)").fill("1965")
	add.get("textbox", "Id (optional)").fill("dune")
	add.get("button", "Add title").click()
	add.get("status", "").waitText("Added “Dune” by Frank Herbert.")
	row := desk.row("Titles", "Dune", "Copies", "No copies yet")
	if row["Holds"] != "No one waiting" {
		t.Fatalf("the catalog says %q of the holds of a title just added", row["Holds"])
	}
	requireAccessible(desk, "the catalog, a title added")
	add.get("link", "Add copies of “Dune” on its page").click()
	desk.get("heading", "Dune")
	desk.waitText("region", "Copies", "No copies yet; no one waiting.")

	barcodes := []string{"31234000123472", "31234000123480"}
	copies := desk.get("region", "Add a copy")
	for _, barcode := range barcodes {
		copies.get("textbox", "Barcode").fill(barcode)
		copies.get("button", "Add copy").click()
		copies.get("status", "").waitText("with barcode " + barcode + ".")
	}
	desk.waitText("region", "Copies", "2 of 2 on the shelf, no one waiting.")
	first, second := copyByBarcode(t, base, libby, barcodes[0]), copyByBarcode(t, base, libby, barcodes[1])
	desk.row("Copies", first, "Barcode", barcodes[0])
	desk.row("Copies", second, "Status", "On the shelf")
	copies.get("textbox", "Barcode").fill(barcodes[1])
	copies.get("button", "Add copy").click()
	desk.waitText("alert", "", "The barcode "+barcodes[1]+" is on copy "+second+" already: check the label, and scan it again.")
	requireAccessible(desk, "a title's page with two copies, a barcode refused")
	for i, id := range []string{first, second} {
		mustCallAs(t, libby, http.MethodPost, base+"/books/"+id+"/loans", map[string]string{"loanId": "loan-" + id, "memberId": []string{"bob", "carol"}[i]}, http.StatusCreated)
	}

	member := newTab(t)
	member.open(base + "/#/titles/dune")
	signIn(member, "alice")
	member.waitText("region", "Copies", "0 of 2 on the shelf, no one waiting.")
	member.row("Copies", first, "Status", "Lent until ")
	requireAbsent(member, "link", "bob", "region", "Add a copy", "region", "Holds on this title")
	placeHold := member.get("region", "Wait for this title").get("button", "Place hold on Dune")
	requireAccessible(member, "a title with every copy out, to a member")
	mustCallAs(t, libby, http.MethodPost, base+"/books/"+first+"/returns", map[string]string{"loanId": "loan-" + first}, http.StatusCreated)
	placeHold.click()
	member.waitText("alert", "", "A copy of “Dune” is on the shelf now, so there is no need to wait for it: ask at the desk to borrow it.")
	member.waitText("region", "Wait for this title", "A copy is on the shelf: ask at the desk to borrow one.")
	requireAbsent(member, "button", "Place hold on Dune")

	mustCallAs(t, libby, http.MethodPost, base+"/books/"+first+"/loans", map[string]string{"loanId": "loan-dan", "memberId": "dan"}, http.StatusCreated)
	member.goTo("#/books")
	member.get("heading", "Catalog")
	member.goTo("#/titles/dune")
	holds := intercept(member, "*/titles/dune/holds", func(int, intercepted) verdict { return verdict{} })
	member.get("button", "Place hold on Dune").click()
	member.waitText("status", "", "Hold placed on “Dune”: the first copy that comes back is kept for you on the hold shelf.")
	member.waitText("region", "Copies", "0 of 2 on the shelf, 1 waiting.")
	member.waitText("region", "Wait for this title", "You are waiting for a copy.")
	requireAbsent(member, "alert", "", "button", "Place hold on Dune")
	if requests := holds.requests(); len(requests) != 1 {
		t.Fatalf("%d holds were sent for one press, want 1", len(requests))
	}
	requireOneKey(t, holds.requests())
	requireAccessible(member, "a title's page, a hold placed")
	// Drawn again, the page can't know of her hold (it reads no list of her holds): Place hold
	// is offered, and the service's refusal tells her she waits.
	member.goTo("#/books")
	member.get("heading", "Catalog")
	member.goTo("#/titles/dune")
	member.get("button", "Place hold on Dune").click()
	member.waitText("alert", "", "You are waiting for “Dune” already, or a copy of it is held for you or lent to you.")
	member.waitText("region", "Wait for this title", "You are waiting for a copy.")
	requireAbsent(member, "button", "Place hold on Dune")

	var queue titleQueue
	if err := json.Unmarshal(mustCallAs(t, libby, http.MethodGet, base+"/titles/dune/holds", nil, http.StatusOK), &queue); err != nil {
		t.Fatal(err)
	}
	if len(queue.Waiting) != 1 || queue.Waiting[0].MemberID != "alice" || queue.Waiting[0].Place != 1 {
		t.Fatalf("the queue of Dune is %+v, want alice alone, first", queue)
	}
	desk.goTo("#/books")
	desk.get("heading", "Catalog")
	desk.goTo("#/titles/dune")
	desk.row("Waiting for a copy", "alice", "Place", "First in line")
	desk.row("Waiting for a copy", "alice", "Copy", "Any copy")
	desk.row("On the hold shelf", "No copy waits on the hold shelf.", "Copy", "")
	requireAccessible(desk, "a title's queue, to a librarian")
	screenshot(desk, "title")

	// A copy comes back: it is kept for alice, and both pages say so once read again.
	mustCallAs(t, libby, http.MethodPost, base+"/books/"+second+"/returns", map[string]string{"loanId": "loan-" + second}, http.StatusCreated)
	if err := json.Unmarshal(mustCallAs(t, libby, http.MethodGet, base+"/titles/dune/holds", nil, http.StatusOK), &queue); err != nil {
		t.Fatal(err)
	}
	if len(queue.Ready) != 1 || queue.Ready[0].BookID != second || queue.Ready[0].MemberID != "alice" {
		t.Fatalf("the queue of Dune after a return is %+v, want %s ready for alice", queue, second)
	}
	until := dayText(desk, queue.Ready[0].Until)
	desk.goTo("#/books")
	desk.get("heading", "Catalog")
	desk.goTo("#/titles/dune")
	desk.row("On the hold shelf", second, "Member", "alice")
	desk.row("Copies", second, "Status", "Held for alice until "+until)
	desk.row("Waiting for a copy", "No one is waiting.", "Member", "")
	member.goTo("#/books")
	member.get("heading", "Catalog")
	member.goTo("#/titles/dune")
	member.row("Copies", second, "Status", "Held for you until "+until)
	member.waitText("region", "Wait for this title", "A copy waits for you on the hold shelf until "+until+": ask at the desk for it.")
}
