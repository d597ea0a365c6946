package auth

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRulesAreOnePerRoute(t *testing.T) {
	t.Parallel()
	rules := Rules()
	require.Len(t, NewTable(rules), len(rules), "no route has two rules")
	for _, r := range rules {
		assert.Contains(t, []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}, r.Method, r.Pattern)
		if r.Member == Own {
			assert.Contains(t, r.Pattern, "{"+OwnParam+"}", "%s %s: own needs the member id in the path", r.Method, r.Pattern)
		}
	}
}

// Decide grants a person the union of their roles' rights, in the role that granted it.
func TestDecide(t *testing.T) {
	t.Parallel()
	table := NewTable(Rules())
	rule := func(method, pattern string) Rule {
		r, ok := table.Find(method, pattern)
		require.True(t, ok, "%s %s", method, pattern)
		return r
	}
	alice := Caller{Subject: "alice", MemberID: "alice"}
	libby := Caller{Subject: "libby", MemberID: "libby", librarian: true}
	oscar := Caller{Subject: "oscar", MemberID: "oscar", operator: true}
	account := rule(http.MethodGet, "/accounts/{memberId}")
	for _, tc := range []struct {
		name    string
		rule    Rule
		caller  Caller
		member  string
		allowed bool
		role    Role
	}{
		{"a member's own account", account, alice, "alice", true, Member},
		{"another member's account", account, alice, "bob", false, Member},
		{"a librarian on anyone's account", account, libby, "alice", true, Librarian},
		{"an operator on their own account, as a member", account, oscar, "oscar", true, Member},
		{"an operator on another's account", account, oscar, "alice", false, Member},
		{"nobody on an account", account, Caller{}, "alice", false, Anonymous},
		{"a fine by a member", rule(http.MethodPost, "/accounts/{memberId}/fines"), alice, "alice", false, Member},
		{"ADMIN_TOKEN on /status", rule(http.MethodGet, "/status"), Caller{Subject: AdminSubject, breakGlass: true}, "", true, Operator},
		{"ADMIN_TOKEN on an account", account, Caller{Subject: AdminSubject, breakGlass: true}, "alice", false, Operator},
		{"sign-in off: an account", account, OpenCaller(), "alice", true, Open},
		{"sign-in off: a replay still wants ADMIN_TOKEN", rule(http.MethodPost, "/admin/processors/{name}/replay"), OpenCaller(), "", false, Open},
		{"anyone on the catalog", rule(http.MethodGet, "/books"), Caller{}, "", true, Anonymous},
	} {
		access, allowed := tc.rule.Decide(tc.caller, tc.member)
		assert.Equal(t, tc.allowed, allowed, tc.name)
		assert.Equal(t, tc.role, access.Role, tc.name)
	}
}

// A request that carries a query parameter with a rule of its own on its route gets that rule;
// any other, the route's. GET /books is anyone's, GET /books?barcode= the desk's.
func TestMatchTakesTheQuerysRule(t *testing.T) {
	t.Parallel()
	table := NewTable(Rules())
	for _, tc := range []struct {
		method, query string
		anonymous     Permission
	}{
		{http.MethodGet, "", Allow},
		{http.MethodGet, "status=lent&q=dune", Allow},
		{http.MethodGet, "barcode=31234000123456", Deny},
		{http.MethodHead, "q=dune&barcode=", Deny},
		{http.MethodGet, "barcode=%zz", Allow}, // no parameter: the handler refuses the query
	} {
		rule, ok := table.Match(tc.method, "/books", tc.query)
		require.True(t, ok, tc.query)
		assert.Equal(t, tc.anonymous, rule.Anonymous, "%s ?%s", tc.method, tc.query)
	}
	rule, ok := table.Match(http.MethodGet, "/books/{bookId}", "barcode=1")
	require.True(t, ok)
	assert.Equal(t, Allow, rule.Anonymous, "a parameter with no rule on the route is the route's")
	rule, _ = table.Match(http.MethodGet, "/books", "barcode=1")
	assert.Equal(t, Rule{Method: http.MethodGet, Pattern: "/books", Query: "barcode", Librarian: Allow, WhenOpen: Allow, Kiosk: Allow}, rule)
}

// A kiosk acts for the member who showed card and PIN (Own), or for anyone where the route is
// no one's in particular (Allow), and nowhere else.
func TestKioskMay(t *testing.T) {
	t.Parallel()
	table := NewTable(Rules())
	lend, _ := table.Find(http.MethodPost, "/books/{bookId}/loans")
	assert.True(t, lend.KioskMay("m1", "m1"))
	assert.False(t, lend.KioskMay("m1", "m2"), "for another member than the one shown")
	assert.False(t, lend.KioskMay("", ""), "before a member showed card and PIN")
	giveBack, _ := table.Find(http.MethodPost, "/books/{bookId}/returns")
	assert.True(t, giveBack.KioskMay("", ""), "a book drop returns anyone's book")
	fine, _ := table.Find(http.MethodPost, "/accounts/{memberId}/fines")
	assert.False(t, fine.KioskMay("m1", "m1"), "a kiosk never charges a fine")
	for _, r := range Rules() {
		if r.Kiosk != Deny {
			assert.NotEqual(t, Allow, r.Anonymous, "%s %s: a route a kiosk reaches is nobody's without sign-in", r.Method, r.Pattern)
		}
	}
}
