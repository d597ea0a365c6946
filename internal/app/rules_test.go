package app_test

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/paytest"
)

// A caller of the rules test: who sends the request, and whose account its path names.
type caller struct {
	name    string
	user    string // the provider's username; "" for none
	bearer  string // a fixed Authorization header instead (a bad token)
	account string // the {memberId} in paths
}

var callers = []caller{
	{name: "anonymous", account: "alice"},
	{name: "member (own)", user: "alice", account: "alice"},
	{name: "member (other)", user: "alice", account: "bob"},
	{name: "librarian", user: "libby", account: "alice"},
	{name: "operator", user: "oscar", account: "alice"},
	{name: "bad token", bearer: "Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl", account: "alice"},
}

// expected is the contract's rules table (docs/api.md), written out here apart from the
// service's own (package auth), so that a wrong rule there fails: for each route, the status
// class each caller gets, in the order of callers. 2 is any 2xx.
var expected = map[string][6]int{
	"GET /healthz":      {2, 2, 2, 2, 2, 2},
	"GET /readyz":       {2, 2, 2, 2, 2, 2},
	"GET /openapi.json": {2, 2, 2, 2, 2, 2},
	"GET /config.json":  {2, 2, 2, 2, 2, 2},
	"GET /":             {2, 2, 2, 2, 2, 2},
	"GET /ui/*":         {2, 2, 2, 2, 2, 2},

	"GET /books":                   {2, 2, 2, 2, 2, 401},
	"GET /books/{bookId}":          {2, 2, 2, 2, 2, 401},
	"POST /books":                  {401, 403, 403, 2, 403, 401},
	"POST /books/{bookId}/loans":   {401, 403, 403, 2, 403, 401},
	"POST /books/{bookId}/returns": {401, 403, 403, 2, 403, 401},
	// A copy missing is the desk's to say.
	"POST /books/{bookId}/lost":             {401, 403, 403, 2, 403, 401},
	"POST /books/{bookId}/claimed-returned": {401, 403, 403, 2, 403, 401},
	// Any member may ask; the loan must be theirs (bob's is not alice's: 403).
	"POST /books/{bookId}/loans/{loanId}/renewals": {401, 2, 403, 2, 403, 401},
	"GET /loans": {401, 403, 403, 2, 403, 401},
	// Any member may ask; the hold must be for themself (one for bob is not alice's: 403).
	"POST /books/{bookId}/holds":              {401, 2, 403, 2, 403, 401},
	"DELETE /books/{bookId}/holds/{memberId}": {401, 2, 403, 2, 403, 401},
	"GET /holds": {401, 403, 403, 2, 403, 401},

	"POST /titles":                      {401, 403, 403, 2, 403, 401},
	"PATCH /titles/{titleId}":           {401, 403, 403, 2, 403, 401},
	"GET /titles/{titleId}":             {2, 2, 2, 2, 2, 401},
	"GET /titles":                       {2, 2, 2, 2, 2, 401},
	"POST /titles/{titleId}/copies":     {401, 403, 403, 2, 403, 401},
	"PUT /books/{bookId}/material-type": {401, 403, 403, 2, 403, 401},
	// Any member may ask; the hold must be for themself (one for bob is not alice's: 403).
	"POST /titles/{titleId}/holds":              {401, 2, 403, 2, 403, 401},
	"DELETE /titles/{titleId}/holds/{memberId}": {401, 2, 403, 2, 403, 401},
	"GET /titles/{titleId}/holds":               {401, 403, 403, 2, 403, 401},

	"GET /accounts/me":                    {401, 2, 2, 2, 2, 401},
	"GET /accounts/{memberId}":            {401, 2, 403, 2, 403, 401},
	"GET /accounts/{memberId}/history":    {401, 2, 403, 2, 403, 401},
	"GET /accounts/{memberId}/loans":      {401, 2, 403, 2, 403, 401},
	"GET /accounts/{memberId}/holds":      {401, 2, 403, 2, 403, 401},
	"PUT /accounts/{memberId}":            {401, 2, 403, 2, 403, 401},
	"PUT /accounts/{memberId}/card":       {401, 403, 403, 2, 403, 401},
	"PUT /accounts/{memberId}/group":      {401, 403, 403, 2, 403, 401},
	"PUT /accounts/{memberId}/pin":        {401, 2, 403, 403, 403, 401},
	"POST /accounts/{memberId}/fines":     {401, 403, 403, 2, 403, 401},
	"POST /accounts/{memberId}/payments":  {401, 403, 403, 2, 403, 401}, // the desk: money a member says they paid is not money
	"POST /accounts/{memberId}/checkouts": {401, 2, 403, 403, 403, 401},
	// Allowed, and then not found: the account has no such checkout.
	"GET /accounts/{memberId}/checkouts/{checkoutId}": {401, 404, 403, 404, 403, 401},
	// Anyone, with no token read: the provider's signature is the check, and these have none.
	"POST /webhooks/stripe":           {400, 400, 400, 400, 400, 400},
	"GET /accounts/{memberId}/export": {401, 2, 403, 2, 403, 401},
	// Allowed, and then refused by the account itself: it still owes (409 AccountNotSettled).
	// Erasing it would take it from the routes that follow.
	"POST /accounts/{memberId}/erasure": {401, 409, 403, 409, 403, 401},

	"GET /circulation-rules":         {401, 403, 403, 2, 2, 401},
	"PUT /circulation-rules":         {401, 403, 403, 2, 403, 401},
	"GET /circulation-rules/resolve": {401, 403, 403, 2, 2, 401},
	// Anyone sees which days the library is closed.
	"GET /calendar":                  {2, 2, 2, 2, 2, 2},
	"PUT /calendar/closed/{date}":    {401, 403, 403, 2, 403, 401},
	"DELETE /calendar/closed/{date}": {401, 403, 403, 2, 403, 401},
	"PUT /calendar/weekly":           {401, 403, 403, 2, 403, 401},

	"GET /status":                                {401, 403, 403, 403, 2, 401},
	"GET /admin/processors/{name}/parked":        {401, 403, 403, 403, 2, 401},
	"POST /admin/processors/{name}/replay":       {401, 403, 403, 403, 2, 401},
	"POST /admin/processors/{name}/retry-parked": {401, 403, 403, 403, 2, 401},
}

// request is what one call sends.
type request struct {
	method, path string
	body         any
	headers      []string
}

// world is a service with sign-in and what the calls need: accounts that owe enough to be paid
// many times (BLOCK_AT above it, so that they still borrow), and a book to read. Each call that would change something gets fresh ids.
type world struct {
	a         *apitest.API
	librarian string // an Authorization header
	n         atomic.Int64
}

func (w *world) next() int64 { return w.n.Add(1) }

// requests make a valid request for each route, preparing what it needs as the librarian.
var requests = map[string]func(t *testing.T, w *world, account string) request{
	"GET /healthz":        get("/healthz"),
	"GET /readyz":         get("/readyz"),
	"GET /openapi.json":   get("/openapi.json"),
	"GET /config.json":    get("/config.json"),
	"GET /":               get("/"),
	"GET /ui/*":           get("/ui/app.js"),
	"GET /books":          get("/books"),
	"GET /books/{bookId}": get("/books/dune"),
	"POST /books": func(_ *testing.T, w *world, _ string) request {
		return request{method: http.MethodPost, path: "/books", body: apitest.Obj{"id": fmt.Sprintf("new-%d", w.next()), "title": "T", "author": "A"}}
	},
	"POST /books/{bookId}/loans": func(t *testing.T, w *world, account string) request {
		book := w.book(t)
		return request{method: http.MethodPost, path: "/books/" + book + "/loans", body: apitest.Obj{"loanId": "loan-" + book, "memberId": account}}
	},
	"POST /books/{bookId}/returns": func(t *testing.T, w *world, account string) request {
		book := w.book(t)
		apitest.RequireResult(t, w.a.Call(t, http.MethodPost, "/books/"+book+"/loans", apitest.Obj{"loanId": "loan-" + book, "memberId": account},
			"Authorization", w.librarian), http.StatusCreated, "book-"+book)
		return request{method: http.MethodPost, path: "/books/" + book + "/returns", body: apitest.Obj{"loanId": "loan-" + book}}
	},
	"POST /books/{bookId}/lost":             missing("lost"),
	"POST /books/{bookId}/claimed-returned": missing("claimed-returned"),
	"POST /books/{bookId}/loans/{loanId}/renewals": func(t *testing.T, w *world, account string) request {
		book := w.book(t)
		apitest.RequireResult(t, w.a.Call(t, http.MethodPost, "/books/"+book+"/loans", apitest.Obj{"loanId": "loan-" + book, "memberId": account},
			"Authorization", w.librarian), http.StatusCreated, "book-"+book)
		return request{method: http.MethodPost, path: "/books/" + book + "/loans/loan-" + book + "/renewals",
			headers: []string{"Idempotency-Key", fmt.Sprintf("renew-%d", w.next())}}
	},
	"POST /books/{bookId}/holds": func(t *testing.T, w *world, account string) request {
		book := w.lentBook(t)
		return request{method: http.MethodPost, path: "/books/" + book + "/holds", body: apitest.Obj{"memberId": account},
			headers: []string{"Idempotency-Key", fmt.Sprintf("hold-%d", w.next())}}
	},
	"DELETE /books/{bookId}/holds/{memberId}": func(t *testing.T, w *world, account string) request {
		book := w.lentBook(t)
		apitest.RequireResult(t, w.a.Call(t, http.MethodPost, "/books/"+book+"/holds", apitest.Obj{"memberId": account},
			"Authorization", w.librarian, "Idempotency-Key", fmt.Sprintf("hold-%d", w.next())), http.StatusCreated, apitest.TitleStreamOf(book))
		return request{method: http.MethodDelete, path: "/books/" + book + "/holds/" + account}
	},
	"POST /titles/{titleId}/copies": func(_ *testing.T, w *world, _ string) request {
		n := w.next()
		return request{method: http.MethodPost, path: "/titles/dune/copies", body: apitest.Obj{"id": fmt.Sprintf("copy-%d", n), "barcode": fmt.Sprintf("C%d", n)}}
	},
	"POST /titles/{titleId}/holds": func(t *testing.T, w *world, account string) request {
		return request{method: http.MethodPost, path: "/titles/" + w.lentTitle(t) + "/holds", body: apitest.Obj{"memberId": account},
			headers: []string{"Idempotency-Key", fmt.Sprintf("hold-%d", w.next())}}
	},
	"DELETE /titles/{titleId}/holds/{memberId}": func(t *testing.T, w *world, account string) request {
		title := w.lentTitle(t)
		apitest.RequireResult(t, w.a.Call(t, http.MethodPost, "/titles/"+title+"/holds", apitest.Obj{"memberId": account},
			"Authorization", w.librarian, "Idempotency-Key", fmt.Sprintf("hold-%d", w.next())), http.StatusCreated, "title-"+title)
		return request{method: http.MethodDelete, path: "/titles/" + title + "/holds/" + account}
	},
	"GET /titles/{titleId}/holds": get("/titles/dune/holds"),
	"POST /titles": func(_ *testing.T, w *world, _ string) request {
		return request{method: http.MethodPost, path: "/titles", body: apitest.Obj{"id": fmt.Sprintf("title-%d", w.next()), "title": "T", "authors": []string{"A"}}}
	},
	"PATCH /titles/{titleId}": func(_ *testing.T, w *world, _ string) request {
		return request{method: http.MethodPatch, path: "/titles/dune", body: apitest.Obj{"title": fmt.Sprintf("Dune, printing %d", w.next())}}
	},
	"GET /titles/{titleId}":    get("/titles/dune"),
	"GET /titles":              get("/titles?q=dune"),
	"GET /loans":               get("/loans"),
	"GET /holds":               get("/holds"),
	"GET /accounts/me":         get("/accounts/me"),
	"GET /accounts/{memberId}": func(_ *testing.T, _ *world, account string) request { return get("/accounts/"+account)(nil, nil, "") },
	"GET /accounts/{memberId}/history": func(_ *testing.T, _ *world, account string) request {
		return get("/accounts/"+account+"/history")(nil, nil, "")
	},
	"GET /accounts/{memberId}/loans": func(_ *testing.T, _ *world, account string) request {
		return get("/accounts/"+account+"/loans")(nil, nil, "")
	},
	"GET /accounts/{memberId}/holds": func(_ *testing.T, _ *world, account string) request {
		return get("/accounts/"+account+"/holds")(nil, nil, "")
	},
	"PUT /accounts/{memberId}": func(_ *testing.T, _ *world, account string) request {
		return request{method: http.MethodPut, path: "/accounts/" + account, body: apitest.Obj{"name": "Name of " + account}}
	},
	"PUT /accounts/{memberId}/card": func(_ *testing.T, w *world, account string) request {
		return request{method: http.MethodPut, path: "/accounts/" + account + "/card", body: apitest.Obj{"cardNumber": fmt.Sprintf("LIB-%d", w.next())}}
	},
	"PUT /accounts/{memberId}/group": func(_ *testing.T, w *world, account string) request {
		return request{method: http.MethodPut, path: "/accounts/" + account + "/group", body: apitest.Obj{"group": fmt.Sprintf("g-%d", w.next())}}
	},
	"PUT /books/{bookId}/material-type": func(_ *testing.T, w *world, _ string) request {
		return request{method: http.MethodPut, path: "/books/dune/material-type", body: apitest.Obj{"materialType": fmt.Sprintf("t-%d", w.next())}}
	},
	"PUT /accounts/{memberId}/pin": func(_ *testing.T, _ *world, account string) request {
		return request{method: http.MethodPut, path: "/accounts/" + account + "/pin", body: apitest.Obj{"pin": "2468"}}
	},
	"POST /accounts/{memberId}/fines": func(_ *testing.T, _ *world, account string) request {
		return request{method: http.MethodPost, path: "/accounts/" + account + "/fines", body: apitest.Obj{"amount": 100, "reason": "late"}}
	},
	"POST /accounts/{memberId}/payments": func(_ *testing.T, w *world, account string) request {
		return request{method: http.MethodPost, path: "/accounts/" + account + "/payments", body: apitest.Obj{"amount": 100},
			headers: []string{"Idempotency-Key", fmt.Sprintf("pay-%d", w.next())}}
	},
	"POST /accounts/{memberId}/checkouts": func(_ *testing.T, w *world, account string) request {
		return request{method: http.MethodPost, path: "/accounts/" + account + "/checkouts", body: apitest.Obj{"amount": 100},
			headers: []string{"Idempotency-Key", fmt.Sprintf("checkout-%d", w.next())}}
	},
	"GET /accounts/{memberId}/checkouts/{checkoutId}": func(_ *testing.T, _ *world, account string) request {
		return get("/accounts/"+account+"/checkouts/co_none")(nil, nil, "")
	},
	"POST /webhooks/stripe": func(*testing.T, *world, string) request {
		return request{method: http.MethodPost, path: "/webhooks/stripe", body: apitest.Obj{"id": "evt_1", "type": "checkout.session.completed", "data": apitest.Obj{}},
			headers: []string{"Stripe-Signature", "t=1,v1=00"}}
	},
	"GET /accounts/{memberId}/export": func(_ *testing.T, _ *world, account string) request {
		return get("/accounts/"+account+"/export")(nil, nil, "")
	},
	"POST /accounts/{memberId}/erasure": func(_ *testing.T, _ *world, account string) request {
		return postTo("/accounts/"+account+"/erasure")(nil, nil, "")
	},
	"GET /circulation-rules": get("/circulation-rules"),
	"PUT /circulation-rules": func(t *testing.T, w *world, _ string) request {
		// On the version the table is at: only the librarian's call changes it.
		r := w.a.Call(t, http.MethodGet, "/circulation-rules", nil, "Authorization", w.librarian)
		require.Equal(t, http.StatusOK, r.Status, r.Body)
		return request{method: http.MethodPut, path: "/circulation-rules",
			body:    apitest.Obj{"rows": []apitest.Obj{{"group": "*", "materialType": "dvd", "renewals": w.next()}}},
			headers: []string{"If-Match", r.Header.Get("ETag")}}
	},
	"GET /circulation-rules/resolve": get("/circulation-rules/resolve?group=adult&materialType=book"),
	"GET /calendar":                  get("/calendar?from=2026-12-01&to=2026-12-31"),
	"PUT /calendar/closed/{date}": func(_ *testing.T, w *world, _ string) request {
		return request{method: http.MethodPut, path: "/calendar/closed/" + day(w.next())}
	},
	"DELETE /calendar/closed/{date}": func(t *testing.T, w *world, _ string) request {
		d := day(w.next())
		apitest.RequireResult(t, w.a.Call(t, http.MethodPut, "/calendar/closed/"+d, nil, "Authorization", w.librarian),
			http.StatusCreated, "calendar-library")
		return request{method: http.MethodDelete, path: "/calendar/closed/" + d}
	},
	"PUT /calendar/weekly": func(_ *testing.T, w *world, _ string) request {
		days := []string{"sunday", "monday"}
		return request{method: http.MethodPut, path: "/calendar/weekly", body: apitest.Obj{"closed": days[w.next()%2:]}}
	},
	"GET /status":                                get("/status"),
	"GET /admin/processors/{name}/parked":        get("/admin/processors/catalog/parked"),
	"POST /admin/processors/{name}/replay":       postTo("/admin/processors/catalog/replay"),
	"POST /admin/processors/{name}/retry-parked": postTo("/admin/processors/catalog/retry-parked"),
}

// day is the nth day of 2030, a date no other call closes.
func day(n int64) string {
	return time.Date(2030, 1, int(n), 0, 0, 0, 0, time.UTC).Format("2006-01-02")
}

func get(path string) func(*testing.T, *world, string) request {
	return func(*testing.T, *world, string) request { return request{method: http.MethodGet, path: path} }
}

func postTo(path string) func(*testing.T, *world, string) request {
	return func(*testing.T, *world, string) request { return request{method: http.MethodPost, path: path} }
}

// book adds a new book, as the librarian, and returns its id.
func (w *world) book(t *testing.T) string {
	id := fmt.Sprintf("book-%d", w.next())
	apitest.RequireResult(t, w.a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": id, "title": "T", "author": "A", "isbn": apitest.ISBNFor(id)},
		"Authorization", w.librarian), http.StatusCreated, "book-"+id)
	return id
}

// lentTitle adds a title with one copy, lent to carol, and returns the title's id: a title others
// may wait for.
func (w *world) lentTitle(t *testing.T) string {
	return strings.TrimPrefix(apitest.TitleStreamOf(w.lentBook(t)), "title-")
}

// lentBook adds a new book and lends it to carol, as the librarian, and returns its id: a book
// others may wait for.
func (w *world) lentBook(t *testing.T) string {
	book := w.book(t)
	apitest.RequireResult(t, w.a.Call(t, http.MethodPost, "/books/"+book+"/loans", apitest.Obj{"loanId": "loan-" + book, "memberId": "carol"},
		"Authorization", w.librarian), http.StatusCreated, "book-"+book)
	return book
}

// Every route of the router has a rule, and each caller gets what the contract's table says:
// anonymous, a member on their own account and on another's, a librarian, an operator, and a
// bad token. The routes come from the router itself, so a new route without a rule (here and
// in package auth) fails.
func TestEveryRouteKeepsItsRule(t *testing.T) {
	t.Parallel()
	idp := apitest.StartProvider(t)
	pay := paytest.Start(t)
	// The members owe a lot, so that every payment route has something to pay, and may borrow
	// still, as many books as the routes lend them.
	a := launch(t, apitest.WithSignIn(apitest.WithPayments(fastBackground(app.Config{WebUI: true, BlockAt: 1_000_000, MaxLoans: 1000}), pay, "http://127.0.0.1:8080"), idp)).API("memory")
	w := &world{a: a, librarian: idp.Bearer(t, "libby")}
	for _, member := range []string{"alice", "bob"} {
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/accounts/"+member+"/fines", apitest.Obj{"amount": 100000, "reason": "lost books"},
			"Authorization", w.librarian), http.StatusCreated, "account-"+member)
	}
	apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": "dune", "title": "Dune", "author": "Frank Herbert"},
		"Authorization", w.librarian), http.StatusCreated, "book-dune")
	apitest.RequireResult(t, a.Call(t, http.MethodPost, "/titles", apitest.Obj{"id": "dune", "title": "Dune", "authors": []string{"Frank Herbert"}},
		"Authorization", w.librarian), http.StatusCreated, "title-dune")

	routed := servedRoutes(t)
	for _, route := range slices.Sorted(maps.Keys(routed)) {
		if _, ok := expected[route]; !ok {
			t.Errorf("%s is routed but has no row in this test's table: add its rule to package auth and here", route)
		}
	}
	for _, route := range slices.Sorted(maps.Keys(expected)) {
		require.True(t, routed[route], "%s is in the table but not routed", route)
		build, ok := requests[route]
		require.True(t, ok, "%s has no request in this test", route)
		for i, c := range callers {
			req := build(t, w, c.account)
			headers := req.headers
			switch {
			case c.bearer != "":
				headers = append(headers, "Authorization", c.bearer)
			case c.user != "":
				headers = append(headers, "Authorization", idp.Bearer(t, c.user))
			}
			var body []byte
			if req.body != nil {
				body = apitest.MustJSON(t, req.body)
			}
			// The answers' shapes are the contract tests' to check; the web app's aren't in it.
			r, err := a.TrySend(req.method, req.path, body, headers...)
			require.NotZero(t, r.Status, "%s as %s: %v", route, c.name, err)
			want := expected[route][i]
			if want == 2 {
				assert.True(t, r.Status >= 200 && r.Status < 300, "%s as %s: %d %s", route, c.name, r.Status, r.Body)
				continue
			}
			if assert.Equal(t, want, r.Status, "%s as %s: %s", route, c.name, r.Body) && want == http.StatusUnauthorized {
				assert.Contains(t, r.Header.Get("WWW-Authenticate"), "Bearer", "%s as %s", route, c.name)
			}
		}
	}
}

// missing is a request that says a copy lent to the account is missing, by path (lost or
// claimed-returned).
func missing(path string) func(t *testing.T, w *world, account string) request {
	return func(t *testing.T, w *world, account string) request {
		book := w.book(t)
		apitest.RequireResult(t, w.a.Call(t, http.MethodPost, "/books/"+book+"/loans", apitest.Obj{"loanId": "loan-" + book, "memberId": account},
			"Authorization", w.librarian), http.StatusCreated, "book-"+book)
		return request{method: http.MethodPost, path: "/books/" + book + "/" + path, body: apitest.Obj{"loanId": "loan-" + book}}
	}
}
