package web_test

// The circulation rules in the web app: a librarian edits the table as a grid, where each empty
// cell says, greyed, what it resolves to; the service's refusal of a cell is said next to it; a
// save on a version someone else has moved on is refused (412), said, and the table read again;
// an operator reads the rules and edits nothing.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// rulesTable is GET /circulation-rules as these tests read it.
type rulesTable struct {
	Version int64            `json:"version"`
	Rows    []map[string]any `json:"rows"`
}

// readRules reads the rules as bearer.
func readRules(t *testing.T, base, bearer string) rulesTable {
	t.Helper()
	var table rulesTable
	if err := json.Unmarshal(mustCallAs(t, bearer, http.MethodGet, base+"/circulation-rules", nil, http.StatusOK), &table); err != nil {
		t.Fatal(err)
	}
	return table
}

// putRules sets the rules on version, as another librarian's client would: as bearer, or as
// anyone ("") on a service without sign-in.
func putRules(t *testing.T, base, bearer string, version int64, rows ...map[string]any) {
	t.Helper()
	ifMatch := strconv.Quote(strconv.FormatInt(version, 10))
	headers := []string{"If-Match", ifMatch, "Idempotency-Key", fmt.Sprintf("test-rules-%d", version)}
	if bearer != "" {
		headers = append(headers, "Authorization", bearer)
	}
	status, b := callAPI(t, http.MethodPut, base+"/circulation-rules", map[string]any{"rows": rows}, headers...)
	if status != http.StatusCreated {
		t.Fatalf("PUT /circulation-rules on %s: %d %s", ifMatch, status, b)
	}
}

// requireRows fails unless the table's rows are want, field by field.
func requireRows(t *testing.T, table rulesTable, want ...map[string]any) {
	t.Helper()
	got, _ := json.Marshal(table.Rows)
	wanted, _ := json.Marshal(want)
	var a, b any
	_ = json.Unmarshal(got, &a)
	_ = json.Unmarshal(wanted, &b)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("the rules at version %d are\n  %s\nwant\n  %s", table.Version, got, wanted)
	}
}

// The librarian opens the rules from the masthead: each cell shows its row's value, and each
// empty one, greyed, the value it resolves to and the row that decides it. She clears the
// staff loan period, and the new staff/dvd row she adds shows at once that the dvd row decides
// it now. A hold pickup of 0d is refused by the service, which is said next to that cell, and
// nothing is saved; corrected, the table is saved whole, as the API then reads it, and What
// applies says, from the service, which row decides each of staff's terms for a dvd.
func TestLibrarianEditsTheRulesGrid(t *testing.T) {
	t.Parallel()
	base, p := signedInService(t)
	libby := p.Bearer(t, "libby")
	putRules(t, base, libby, 0,
		map[string]any{"group": "*", "materialType": "*", "loanPeriod": "21d", "renewals": 2},
		map[string]any{"group": "staff", "materialType": "*", "loanPeriod": "28d"},
		map[string]any{"group": "*", "materialType": "dvd", "loanPeriod": "7d", "finePerDay": 100})

	tb := newTab(t)
	tb.open(base + "/#/books")
	signIn(tb, "libby")
	tb.get("navigation", "Main").get("link", "Circulation rules").click()
	tb.get("heading", "Circulation rules")
	tb.waitText("region", "Circulation rules", "Version 1 of the rules.")
	if v := tb.get("textbox", "Loan period, staff / *").value(); v != "28d" {
		t.Fatalf("the staff row's loan period reads %q, want 28d", v)
	}
	tb.get("textbox", "Renewals, staff / *").waitDescription("Empty, so 2 from * / *")
	tb.get("textbox", "Loans at once, * / *").waitDescription("by default")
	tb.get("combobox", "Holds, * / dvd").waitDescription("On the title by default")
	requireAccessible(tb, "the circulation rules, as read")

	tb.get("button", "Add a row").click()
	tb.get("textbox", "Patron group, row 4").fill("staff")
	tb.get("textbox", "Material type, row 4").fill("dvd")
	tb.get("textbox", "Loan period, staff / dvd").waitDescription("Empty, so 28d from staff / *")
	tb.get("textbox", "Fine per day, staff / dvd").waitDescription("1.00 from * / dvd")
	tb.get("textbox", "Renewals, staff / dvd").fill("0")
	tb.get("textbox", "Loan period, staff / *").fill("")
	tb.get("textbox", "Loan period, staff / dvd").waitDescription("Empty, so 7d from * / dvd")
	tb.get("textbox", "Loan period, staff / *").waitDescription("Empty, so 21d from * / *")
	pickup := tb.get("textbox", "Hold pickup, staff / dvd")
	pickup.fill("0d")
	tb.get("button", "Save rules").click()
	tb.waitText("alert", "", "The rules were not saved. staff / dvd, Hold pickup: Hold pickup must be a period more than zero")
	pickup.waitDescription("Hold pickup must be a period more than zero")
	if invalid, err := pickup.call(`function() { return this.getAttribute("aria-invalid") ?? ""; }`); err != nil || invalid != "true" {
		t.Fatalf("the refused cell is not marked invalid: %q (%v)", invalid, err)
	}
	if tb.focused() != "Hold pickup, staff / dvd" {
		t.Fatalf("focus is on %q after the refusal, want the refused cell", tb.focused())
	}
	if v := readRules(t, base, libby).Version; v != 1 {
		t.Fatalf("a refused table moved the rules to version %d", v)
	}
	requireAccessible(tb, "the circulation rules, a cell refused")

	pickup.fill("2d")
	tb.get("button", "Save rules").click()
	tb.waitText("status", "", "Saved the circulation rules.")
	tb.waitText("region", "Circulation rules", "Version 2 of the rules.")
	requireRows(t, readRules(t, base, libby),
		map[string]any{"group": "*", "materialType": "*", "loanPeriod": "21d", "renewals": 2},
		map[string]any{"group": "staff", "materialType": "*"},
		map[string]any{"group": "*", "materialType": "dvd", "loanPeriod": "7d", "finePerDay": 100},
		map[string]any{"group": "staff", "materialType": "dvd", "renewals": 0, "holdPickup": "2d"})
	tb.get("textbox", "Loan period, staff / dvd").waitDescription("Empty, so 7d from * / dvd")
	if v := tb.get("textbox", "Renewals, staff / dvd").value(); v != "0" {
		t.Fatalf("the saved staff/dvd row's renewals read %q, want 0", v)
	}

	applies := tb.get("region", "What applies")
	applies.get("textbox", "Patron group").fill("staff")
	applies.get("textbox", "Material type").fill("dvd")
	applies.get("button", "Show the terms").click()
	tb.row("Terms for staff / dvd", "Loan period", "Decided by", "Row 3: * / dvd")
	for field, want := range map[string][2]string{
		"Loan period":  {"7d", "Row 3: * / dvd"},
		"Renewals":     {"0", "Row 4: staff / dvd"},
		"Fine per day": {"1.00", "Row 3: * / dvd"},
		"Hold pickup":  {"2d", "Row 4: staff / dvd"},
		"Holds":        {"On the title", "The defaults"},
	} {
		row := tb.row("Terms for staff / dvd", field, "Decided by", want[1])
		if row["Value"] != want[0] {
			t.Errorf("What applies says %s is %q, want %q", field, row["Value"], want[0])
		}
	}
	requireAccessible(tb, "the circulation rules, saved, and what applies")
	screenshot(tb, "circulation-rules")
}

// The librarian has the rules open when someone else saves them. Her save, made on the version
// she read, is refused: the page says someone else changed them, and shows them as they are
// now, her edit gone. Made again, it is saved under a new Idempotency-Key, on the new version.
// An operator then reads the rules, greyed values and all, with nothing to edit.
func TestRulesChangedMeanwhileAreReadAgain(t *testing.T) {
	t.Parallel()
	base, p := signedInService(t)
	libby := p.Bearer(t, "libby")
	putRules(t, base, libby, 0, map[string]any{"group": "*", "materialType": "*", "loanPeriod": "21d"})

	tb := newTab(t)
	tb.open(base + "/#/books")
	signIn(tb, "libby")
	tb.goTo("#/circulation-rules")
	tb.waitText("region", "Circulation rules", "Version 1 of the rules.")
	putRules(t, base, libby, 1, map[string]any{"group": "*", "materialType": "*", "loanPeriod": "14d"})

	tb.get("textbox", "Renewals, * / *").fill("5")
	tb.get("button", "Save rules").click()
	tb.waitText("alert", "", "Someone else changed the circulation rules since this page read them, so your changes were not saved.")
	tb.waitText("region", "Circulation rules", "Version 2 of the rules.")
	if v := tb.get("textbox", "Loan period, * / *").value(); v != "14d" {
		t.Fatalf("after the refusal the loan period reads %q, want the other librarian's 14d", v)
	}
	renewals := tb.get("textbox", "Renewals, * / *")
	if v := renewals.value(); v != "" {
		t.Fatalf("after the refusal the renewals read %q: the refused edit is still shown as if it were the rules", v)
	}
	requireAccessible(tb, "the circulation rules, a save refused as stale")

	renewals.fill("5")
	tb.get("button", "Save rules").click()
	tb.waitText("status", "", "Saved the circulation rules.")
	tb.waitText("region", "Circulation rules", "Version 3 of the rules.")
	requireRows(t, readRules(t, base, libby), map[string]any{"group": "*", "materialType": "*", "loanPeriod": "14d", "renewals": 5})

	ops := newTab(t)
	ops.open(base + "/#/books")
	signIn(ops, "oscar")
	ops.get("navigation", "Main").get("link", "Circulation rules").click()
	ops.row("Circulation rules", "*", "Loan period", "14d")
	row := ops.row("Circulation rules", "*", "Renewals", "5")
	if loans := row["Loans at once"]; !strings.HasPrefix(loans, "Empty, so ") || !strings.HasSuffix(loans, " by default") || row["Material type"] != "*" {
		t.Fatalf("the operator reads the row as %v", row)
	}
	ops.row("Circulation rules", "Defaults", "Holds", "On the title")
	requireAbsent(ops, "button", "Save rules", "button", "Add a row", "textbox", "Loan period, * / *", "link", "Overdue")
	requireAccessible(ops, "the circulation rules, read by an operator")
}
