package accountsapi_test

// Accounts with sign-in on: who may do what to whose account, an address that comes from the
// member's provider, who did what in the account's history, and keys that answer only their
// owner.

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// signedIn runs test on both stores with sign-in through a test provider.
func signedIn(t *testing.T, test func(t *testing.T, a *apitest.API, idp *apitest.Provider)) {
	idp := apitest.StartProvider(t)
	apitest.ForEachStore(t, apitest.WithSignIn(app.Config{}, idp), func(t *testing.T, a *apitest.API) { test(t, a, idp) })
}

// An Idempotency-Key answers only the person who sent it first: a librarian who sends a
// member's key on the member's account is refused (422), never given the member's answer; the
// same key on another member's own account is a first run there.
func TestHTTPKeysBelongToTheirCaller(t *testing.T) {
	t.Parallel()
	signedIn(t, func(t *testing.T, a *apitest.API, idp *apitest.Provider) {
		libby, alice, bob := idp.Bearer(t, "libby"), idp.Bearer(t, "alice"), idp.Bearer(t, "bob")
		name := func(member, bearer, name string) apitest.Response {
			return a.Call(t, http.MethodPut, "/accounts/"+member, apitest.Obj{"name": name}, "Idempotency-Key", "k-1", "Authorization", bearer)
		}
		first := name("alice", alice, "Alice A.")
		apitest.RequireResult(t, first, http.StatusCreated, "account-alice")
		apitest.RequireReplay(t, first, name("alice", alice, "Alice A."))

		p := apitest.RequireProblem(t, name("alice", libby, "Alice A."), http.StatusUnprocessableEntity, "IdempotencyKeyReused")
		assert.Contains(t, p.Detail, "someone else")
		assert.NotContains(t, p.Detail, "alice")
		apitest.RequireProblem(t, name("alice", bob, "Alice A."), http.StatusForbidden, "Forbidden")

		theirs := name("bob", bob, "Bob B.")
		apitest.RequireResult(t, theirs, http.StatusCreated, "account-bob")
		assert.Empty(t, theirs.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, "Alice A.", *getAs(t, a, "alice", alice).Name, "alice's name, set once")
	})
}

// Money a member says they paid is not money: a member may not record a payment (they pay
// online, where the provider says what arrived); the librarian at the desk may, even more than
// is owed.
func TestHTTPMembersRecordNoPayments(t *testing.T) {
	t.Parallel()
	signedIn(t, func(t *testing.T, a *apitest.API, idp *apitest.Provider) {
		libby, alice := idp.Bearer(t, "libby"), idp.Bearer(t, "alice")
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/accounts/alice/fines", apitest.Obj{"amount": 300, "reason": "late"},
			"Authorization", libby), http.StatusCreated, "account-alice")
		apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/accounts/alice/payments", apitest.Obj{"amount": 300},
			"Idempotency-Key", "mine", "Authorization", alice), http.StatusForbidden, "Forbidden")
		assert.EqualValues(t, 300, getAs(t, a, "alice", alice).Balance, "nothing recorded")
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/accounts/alice/payments", apitest.Obj{"amount": 1000},
			"Idempotency-Key", "desk", "Authorization", libby), http.StatusCreated, "account-alice")
		assert.EqualValues(t, -700, getAs(t, a, "alice", alice).Balance, "credit from the desk")
	})
}

// A member's address is the one their provider vouches for: recorded when they first use
// their account, never typed by them, and not replaced by staff. Staff may give an address to
// a member who has never signed in, marked as theirs.
func TestHTTPEmailComesFromTheProvider(t *testing.T) {
	t.Parallel()
	signedIn(t, func(t *testing.T, a *apitest.API, idp *apitest.Provider) {
		libby, alice := idp.Bearer(t, "libby"), idp.Bearer(t, "alice")
		var me struct {
			MemberID *string          `json:"memberId"`
			Roles    []string         `json:"roles"`
			Open     bool             `json:"open"`
			Account  *apitest.Account `json:"account"`
		}
		apitest.RequireJSON(t, a.Call(t, http.MethodGet, "/accounts/me", nil, "Authorization", alice), &me)
		require.NotNil(t, me.Account, "first use opens the account")
		assert.Equal(t, "alice", *me.MemberID)
		assert.Equal(t, []string{"member"}, me.Roles)
		assert.Equal(t, "alice@example.org", *me.Account.Email)
		assert.Equal(t, "provider", *me.Account.EmailFrom)
		assert.Equal(t, "Alice Member", *me.Account.Name, "the provider's name, until the member gives one")

		put := func(member, bearer string, body apitest.Obj) apitest.Response {
			return a.Call(t, http.MethodPut, "/accounts/"+member, body, "Authorization", bearer)
		}
		apitest.RequireResult(t, put("alice", alice, apitest.Obj{"name": "Alice A."}), http.StatusCreated, "account-alice")
		apitest.RequireProblem(t, put("alice", alice, apitest.Obj{"name": "Alice", "email": "elsewhere@example.org"}), http.StatusForbidden, "Forbidden")
		apitest.RequireProblem(t, put("alice", libby, apitest.Obj{"name": "Alice", "email": "elsewhere@example.org"}), http.StatusForbidden, "Forbidden")
		apitest.RequireResult(t, put("alice", libby, apitest.Obj{"name": "Alice Anders"}), http.StatusCreated, "account-alice")
		acc := getAs(t, a, "alice", alice)
		assert.Equal(t, "Alice Anders", *acc.Name)
		assert.Equal(t, "alice@example.org", *acc.Email, "the provider's address stays")

		apitest.RequireResult(t, put("carol", libby, apitest.Obj{"name": "Carol", "email": "carol@example.org"}), http.StatusCreated, "account-carol")
		carol := getAs(t, a, "carol", libby)
		assert.Equal(t, "staff", *carol.EmailFrom)
	})
}

// The log says who did what: a member's history shows staff by role only, and themself by
// name; staff see everyone.
func TestHTTPHistorySaysWhoDidIt(t *testing.T) {
	t.Parallel()
	signedIn(t, func(t *testing.T, a *apitest.API, idp *apitest.Provider) {
		libby, alice := idp.Bearer(t, "libby"), idp.Bearer(t, "alice")
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/accounts/alice/fines", apitest.Obj{"amount": 300, "reason": "late"},
			"Authorization", libby), http.StatusCreated, "account-alice")
		apitest.RequireResult(t, a.Call(t, http.MethodPut, "/accounts/alice", apitest.Obj{"name": "Alice A."},
			"Authorization", alice), http.StatusCreated, "account-alice")

		type entry struct {
			Version    int64           `json:"version"`
			Position   int64           `json:"position"`
			RecordedAt string          `json:"recordedAt"`
			Type       string          `json:"type"`
			Data       json.RawMessage `json:"data"`
			By         map[string]any  `json:"by"`
		}
		history := func(bearer string) []entry {
			var h struct {
				MemberID string  `json:"memberId"`
				Entries  []entry `json:"entries"`
				Next     *int64  `json:"next"`
			}
			apitest.RequireJSON(t, a.Call(t, http.MethodGet, "/accounts/alice/history", nil, "Authorization", bearer), &h)
			return h.Entries
		}
		mine := history(alice)
		require.Len(t, mine, 2, "newest first: her name and the address from the provider, the fine")
		assert.Equal(t, "AccountOpened", mine[0].Type)
		assert.Equal(t, map[string]any{"role": "member", "subject": "alice", "issuer": idp.Issuer}, mine[0].By)
		assert.Equal(t, "FineCharged", mine[1].Type)
		assert.Equal(t, map[string]any{"role": "librarian"}, mine[1].By, "staff by role only")

		staff := history(libby)
		assert.Equal(t, map[string]any{"role": "librarian", "subject": "libby", "issuer": idp.Issuer}, staff[1].By)
	})
}

func getAs(t *testing.T, a *apitest.API, member, bearer string) apitest.Account {
	t.Helper()
	var acc apitest.Account
	apitest.RequireJSON(t, a.Call(t, http.MethodGet, "/accounts/"+member, nil, "Authorization", bearer), &acc)
	return acc
}

// "me" is no member's id: /accounts/me is the caller's own account, so no account, fine or
// loan may be made under it.
func TestHTTPMeIsNoMembersID(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		// The document has GET /accounts/me alone, so this answer can't be checked against it.
		put, _ := a.TrySend(http.MethodPut, "/accounts/me", []byte(`{"name":"Me"}`))
		for _, r := range []apitest.Response{
			put,
			a.Call(t, http.MethodPost, "/accounts/me/fines", apitest.Obj{"amount": 100, "reason": "late"}),
			a.Call(t, http.MethodPost, "/accounts/me/payments", apitest.Obj{"amount": 100}, "Idempotency-Key", "k"),
		} {
			p := apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
			assert.Contains(t, p.Detail, `"me"`)
		}
		apitest.AddBook(t, a, "dune")
		r := a.Call(t, http.MethodPost, "/books/dune/loans", apitest.Obj{"loanId": "loan-1", "memberId": "me"})
		apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
	})
}
