package auth

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
)

// Permission is what one role may do on one route.
type Permission uint8

// The permissions, weakest first.
const (
	// Deny refuses the route.
	Deny Permission = iota
	// Own allows the route only for the caller's own member id (the {memberId} in its path).
	Own
	// Allow allows the route.
	Allow
)

// String is the permission as the OpenAPI document's x-roles writes it.
func (p Permission) String() string {
	return [...]string{"deny", "own", "allow"}[p]
}

// OwnParam is the route parameter that Own compares with the caller's member id.
const OwnParam = "memberId"

// Rule is who may call one route: its method and its pattern as the router writes it.
type Rule struct {
	Method  string
	Pattern string
	// Query, when set, names a query parameter: the rule is then the route's for the requests
	// that carry it, in place of the route's own (GET /books?barcode= is the desk's, GET /books
	// anyone's). Its route keeps a rule without Query for every other request.
	Query string
	// What each role may do. A person has the union of their roles' rights, and every
	// signed-in person is a member.
	Anonymous, Member, Librarian, Operator Permission
	// WhenOpen is what anyone may do while sign-in is off: everything but the admin actions,
	// which still want ADMIN_TOKEN.
	WhenOpen Permission
	// Narrowed says what the handler narrows further by the caller, for the docs.
	Narrowed string
	// Kiosk is what a self-check terminal may do through SIP2, which reaches the route's service
	// without HTTP (package kiosk maps each message to the route it stands for): Own is for the
	// member who showed their card and PIN at the kiosk, Allow for anyone (a book drop returns
	// books of no one in particular). No token carries the role: a route's HTTP callers never
	// act in it.
	Kiosk Permission
}

// Public reports whether anyone may call the route, signed in or not, with the same answer:
// its requests need no token, and one sent with them is not even read.
func (r Rule) Public() bool {
	return r.Anonymous == Allow && r.Member == Allow && r.Librarian == Allow && r.Operator == Allow && r.Narrowed == ""
}

// Anyone is a rule that lets anyone call a route. It and the functions below make the common
// rows of the table.
func Anyone(method, pattern string) Rule {
	return Rule{Method: method, Pattern: pattern, Anonymous: Allow, Member: Allow, Librarian: Allow, Operator: Allow, WhenOpen: Allow}
}

func librarians(method, pattern string) Rule {
	return Rule{Method: method, Pattern: pattern, Librarian: Allow, WhenOpen: Allow}
}

func operators(method, pattern string, whenOpen Permission) Rule {
	return Rule{Method: method, Pattern: pattern, Operator: Allow, WhenOpen: whenOpen}
}

// kiosks is r with what a self-check terminal may do on its route.
func kiosks(r Rule, p Permission) Rule {
	r.Kiosk = p
	return r
}

func ownOrLibrarian(method, pattern, narrowed string) Rule {
	return Rule{Method: method, Pattern: pattern, Member: Own, Librarian: Allow, WhenOpen: Allow, Narrowed: narrowed}
}

// Rules is the table: every route of the service, and who may call it. docs/api.md and the
// OpenAPI document's x-roles carry the same table, and tests hold all three and the router
// to it.
func Rules() []Rule {
	catalog := "anonymous callers see loans without borrower ids; a member sees which loans are theirs"
	// A title reads the token as the catalogue's reads do, so that its copies' loans are
	// shown as GET /books shows them, and the caller is counted as the one signed in.
	titleRecord := "borrowers and holders of its copies shown to staff only; a member sees which are theirs"
	// The titles' list shows everyone the same, but reads the token as the catalogue's reads
	// do, so that a read waiting for minPosition counts as the one signed in.
	titleList := "the same for everyone; a token sent is checked, and a wait for minPosition counts as its caller's"
	rules := []Rule{
		Anyone(http.MethodGet, "/healthz"),
		Anyone(http.MethodGet, "/readyz"),
		Anyone(http.MethodGet, "/openapi.json"),
		Anyone(http.MethodGet, "/config.json"),
		Anyone(http.MethodGet, "/"),
		Anyone(http.MethodGet, "/ui/*"),

		{Method: http.MethodGet, Pattern: "/books", Anonymous: Allow, Member: Allow, Librarian: Allow, Operator: Allow, WhenOpen: Allow, Narrowed: catalog},
		{Method: http.MethodGet, Pattern: "/books/{bookId}", Anonymous: Allow, Member: Allow, Librarian: Allow, Operator: Allow, WhenOpen: Allow, Narrowed: catalog},
		// The desk scans a copy's barcode (and a kiosk will, in a role of its own).
		{Method: http.MethodGet, Pattern: "/books", Query: "barcode", Librarian: Allow, WhenOpen: Allow, Kiosk: Allow},
		librarians(http.MethodPost, "/books"),
		librarians(http.MethodPost, "/titles/{titleId}/copies"),
		librarians(http.MethodPut, "/books/{bookId}/material-type"),
		kiosks(librarians(http.MethodPost, "/books/{bookId}/loans"), Own),
		kiosks(librarians(http.MethodPost, "/books/{bookId}/returns"), Allow),
		// A copy missing is the desk's to say: lost (charged), or claimed returned (flagged).
		librarians(http.MethodPost, "/books/{bookId}/lost"),
		librarians(http.MethodPost, "/books/{bookId}/claimed-returned"),
		{Method: http.MethodPost, Pattern: "/books/{bookId}/loans/{loanId}/renewals", Member: Allow, Librarian: Allow, WhenOpen: Allow,
			Narrowed: "a member renews their own loans", Kiosk: Own},
		librarians(http.MethodGet, "/loans"),
		{Method: http.MethodPost, Pattern: "/books/{bookId}/holds", Member: Allow, Librarian: Allow, WhenOpen: Allow,
			Narrowed: "a member places holds for themself"},
		ownOrLibrarian(http.MethodDelete, "/books/{bookId}/holds/{memberId}", ""),
		librarians(http.MethodGet, "/holds"),

		librarians(http.MethodPost, "/titles"),
		librarians(http.MethodPatch, "/titles/{titleId}"),
		{Method: http.MethodPost, Pattern: "/titles/{titleId}/holds", Member: Allow, Librarian: Allow, WhenOpen: Allow,
			Narrowed: "a member places holds for themself", Kiosk: Own},
		kiosks(ownOrLibrarian(http.MethodDelete, "/titles/{titleId}/holds/{memberId}", ""), Own),
		librarians(http.MethodGet, "/titles/{titleId}/holds"),
		{Method: http.MethodGet, Pattern: "/titles/{titleId}", Anonymous: Allow, Member: Allow, Librarian: Allow, Operator: Allow, WhenOpen: Allow,
			Narrowed: titleRecord},
		{Method: http.MethodGet, Pattern: "/titles", Anonymous: Allow, Member: Allow, Librarian: Allow, Operator: Allow, WhenOpen: Allow,
			Narrowed: titleList},

		{Method: http.MethodGet, Pattern: "/accounts/me", Member: Allow, Librarian: Allow, Operator: Allow, WhenOpen: Allow},
		kiosks(ownOrLibrarian(http.MethodGet, "/accounts/{memberId}", ""), Own),
		ownOrLibrarian(http.MethodGet, "/accounts/{memberId}/history", "a member sees staff by role only"),
		kiosks(ownOrLibrarian(http.MethodGet, "/accounts/{memberId}/loans", ""), Own),
		kiosks(ownOrLibrarian(http.MethodGet, "/accounts/{memberId}/holds", ""), Own),
		ownOrLibrarian(http.MethodPut, "/accounts/{memberId}", "a member sets their name only: their email comes from their sign-in"),
		librarians(http.MethodPut, "/accounts/{memberId}/card"),
		librarians(http.MethodPut, "/accounts/{memberId}/group"),
		// A PIN is the member's secret: staff may give a card, never choose its PIN.
		{Method: http.MethodPut, Pattern: "/accounts/{memberId}/pin", Member: Own, WhenOpen: Allow},
		librarians(http.MethodPost, "/accounts/{memberId}/fines"),
		kiosks(librarians(http.MethodPost, "/accounts/{memberId}/payments"), Own),
		ownOrLibrarian(http.MethodPost, "/accounts/{memberId}/erasure", "only a settled account, with no book on loan"),
		ownOrLibrarian(http.MethodGet, "/accounts/{memberId}/export", ""),
		{Method: http.MethodPost, Pattern: "/accounts/{memberId}/checkouts", Member: Own, WhenOpen: Allow, Narrowed: "at most what they owe"},
		ownOrLibrarian(http.MethodGet, "/accounts/{memberId}/checkouts/{checkoutId}", ""),
		// The provider signs its webhooks: the handler checks the signature, not a token.
		Anyone(http.MethodPost, "/webhooks/stripe"),

		operators(http.MethodGet, "/status", Allow),
		operators(http.MethodGet, "/admin/processors/{name}/parked", Deny),
		operators(http.MethodPost, "/admin/processors/{name}/replay", Deny),
		operators(http.MethodPost, "/admin/processors/{name}/retry-parked", Deny),
	}
	return append(rules, libraryDays()...)
}

// libraryDays are the rules of the circulation rules' and the calendar's routes.
func libraryDays() []Rule {
	return []Rule{
		// The circulation rules are staff's: librarians set them and read them, operators read
		// them (to answer "why was this loan 7 days?") and change nothing.
		{Method: http.MethodGet, Pattern: "/circulation-rules", Librarian: Allow, Operator: Allow, WhenOpen: Allow},
		librarians(http.MethodPut, "/circulation-rules"),
		{Method: http.MethodGet, Pattern: "/circulation-rules/resolve", Librarian: Allow, Operator: Allow, WhenOpen: Allow},
		// Anyone sees which days the library is closed; librarians close and open them.
		Anyone(http.MethodGet, "/calendar"),
		librarians(http.MethodPut, "/calendar/closed/{date}"),
		librarians(http.MethodDelete, "/calendar/closed/{date}"),
		librarians(http.MethodPut, "/calendar/weekly"),
	}
}

// Table is the rules by method, pattern and query parameter, for lookups on every request.
type Table map[route]Rule

type route struct{ method, pattern, query string }

// NewTable indexes rules by method, pattern and query parameter.
func NewTable(rules []Rule) Table {
	t := make(Table, len(rules))
	for _, r := range rules {
		t[route{r.Method, r.Pattern, r.Query}] = r
	}
	return t
}

// Find returns the rule of a route. HEAD is answered as GET is, so it has GET's rule.
func (t Table) Find(method, pattern string) (Rule, bool) {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	r, ok := t[route{method, pattern, ""}]
	return r, ok
}

// Match returns the rule of a request to a route, given its raw query string: the rule of the
// first query parameter it carries, in byte order, that has a rule of its own on the route,
// else the route's (Find). A pair that does not decode is no parameter here: the route's
// handler refuses a query that does not decode.
func (t Table) Match(method, pattern, rawQuery string) (Rule, bool) {
	if rawQuery != "" {
		if method == http.MethodHead {
			method = http.MethodGet
		}
		query, _ := url.ParseQuery(rawQuery) // what decodes; the handler refuses the rest
		for _, name := range slices.Sorted(maps.Keys(query)) {
			if r, ok := t[route{method, pattern, name}]; ok {
				return r, true
			}
		}
	}
	return t.Find(method, pattern)
}

// KioskMay reports whether a self-check terminal may do what the rule's route does, for
// memberID (the route's {memberId}, or the member the action is for: the borrower of a loan,
// the payer of a fee; "" for none), when shown is the member who showed their card and PIN at
// the kiosk ("" while none has).
func (r Rule) KioskMay(shown, memberID string) bool {
	switch r.Kiosk {
	case Allow:
		return true
	case Own:
		return shown != "" && memberID == shown
	}
	return false
}

// Decide says whether the rule lets the caller in, and in which role. memberID is the route's
// {memberId}, for Own ("" when the route has none).
func (r Rule) Decide(c Caller, memberID string) (Access, bool) {
	switch {
	case c.breakGlass && r.Operator == Allow:
		return Access{Caller: c, Role: Operator}, true
	case c.open:
		return Access{Caller: c, Role: Open}, r.WhenOpen == Allow
	case c.breakGlass:
		return Access{Caller: c, Role: Operator}, false
	case !c.SignedIn():
		return Access{Caller: c, Role: Anonymous}, r.Anonymous == Allow
	}
	for _, role := range []struct {
		role Role
		has  bool
		may  Permission
	}{{Librarian, c.librarian, r.Librarian}, {Operator, c.operator, r.Operator}, {Member, true, r.Member}} {
		if role.has && role.may == Allow {
			return Access{Caller: c, Role: role.role}, true
		}
	}
	if r.Member == Own && memberID != "" && memberID == c.MemberID {
		return Access{Caller: c, Role: Member}, true
	}
	return Access{Caller: c, Role: Member}, false
}
