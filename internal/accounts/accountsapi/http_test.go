package accountsapi_test

// Contract tests for the accounts endpoints of docs/api.md, and the README's "I clicked twice"
// story told over HTTP. Each test runs on both stores.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

func ptr(s string) *string { return &s }

// PUT /accounts/{memberId}: 201 AccountOpened the first time, 201 ContactChanged after that,
// 200 with no events when nothing changed; email is optional (absent or null: none) and
// removable; "" and malformed addresses are 400 InvalidRequest.
func TestHTTPPutAccount(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		put := func(t *testing.T, memberID string, body any, headers ...string) apitest.Response {
			t.Helper()
			return a.Call(t, http.MethodPut, "/accounts/"+memberID, body, headers...)
		}
		t.Run("201 AccountOpened without email", func(t *testing.T) {
			res := apitest.RequireResult(t, put(t, "alice", apitest.Obj{"name": "Alice"}), http.StatusCreated, "account-alice")
			assert.EqualValues(t, 1, res.Version)
			apitest.RequireEvent(t, res, "AccountOpened", `{"name":"Alice"}`)
			assert.Equal(t, apitest.Account{MemberID: "alice", Name: ptr("Alice"), Version: 1}, apitest.GetAccount(t, a, "alice"))
		})
		t.Run("200 and no events when nothing changed, email absent or null", func(t *testing.T) {
			apitest.RequireResult(t, put(t, "alice", apitest.Obj{"name": "Alice"}), http.StatusOK, "account-alice")
			res := apitest.RequireResult(t, put(t, "alice", apitest.Obj{"name": "Alice", "email": nil}), http.StatusOK, "account-alice")
			assert.EqualValues(t, 1, res.Version)
		})
		t.Run("201 ContactChanged adding an email", func(t *testing.T) {
			res := apitest.RequireResult(t, put(t, "alice", apitest.Obj{"name": "Alice", "email": "alice@example.com"}), http.StatusCreated, "account-alice")
			assert.EqualValues(t, 2, res.Version)
			apitest.RequireEvent(t, res, "ContactChanged", `{"name":"Alice","email":"alice@example.com"}`)
			apitest.RequireResult(t, put(t, "alice", apitest.Obj{"name": "Alice", "email": "alice@example.com"}), http.StatusOK, "account-alice")
			assert.Equal(t, ptr("alice@example.com"), apitest.GetAccount(t, a, "alice").Email)
		})
		t.Run("201 ContactChanged removing the email with null", func(t *testing.T) {
			res := apitest.RequireResult(t, put(t, "alice", apitest.Obj{"name": "Alice Liddell", "email": nil}), http.StatusCreated, "account-alice")
			apitest.RequireEvent(t, res, "ContactChanged", `{"name":"Alice Liddell"}`)
			assert.Equal(t, apitest.Account{MemberID: "alice", Name: ptr("Alice Liddell"), Version: 3}, apitest.GetAccount(t, a, "alice"))
		})
		t.Run("201 AccountOpened with an email", func(t *testing.T) {
			res := apitest.RequireResult(t, put(t, "bob", apitest.Obj{"name": "Bob", "email": "bob+library@example.org"}), http.StatusCreated, "account-bob")
			apitest.RequireEvent(t, res, "AccountOpened", `{"name":"Bob","email":"bob+library@example.org"}`)
		})
		t.Run("a repeat with its Idempotency-Key is replayed", func(t *testing.T) {
			body := apitest.Obj{"name": "Carol", "email": "carol@example.com"}
			first := put(t, "carol", body, "Idempotency-Key", "open-carol")
			apitest.RequireResult(t, first, http.StatusCreated, "account-carol")
			apitest.RequireReplay(t, first, put(t, "carol", body, "Idempotency-Key", "open-carol"))
		})
		t.Run("a keyed repeat of a change-nothing request gets the first answer, and undoes nothing", func(t *testing.T) {
			apitest.RequireResult(t, put(t, "erin", apitest.Obj{"name": "Erin", "email": "erin@example.com"}), http.StatusCreated, "account-erin")
			first := put(t, "erin", apitest.Obj{"name": "Erin", "email": "erin@example.com"}, "Idempotency-Key", "c1")
			nothing := apitest.RequireResult(t, first, http.StatusOK, "account-erin")
			assert.EqualValues(t, 2, nothing.Version, "the key is recorded in the stream")
			apitest.RequireResult(t, put(t, "erin", apitest.Obj{"name": "Erin", "email": "erin@new.example.com"}), http.StatusCreated, "account-erin")

			retry := put(t, "erin", apitest.Obj{"name": "Erin", "email": "erin@example.com"}, "Idempotency-Key", "c1")
			apitest.RequireReplay(t, first, retry)
			assert.Equal(t, ptr("erin@new.example.com"), apitest.GetAccount(t, a, "erin").Email, "the late retry did not set the old email back")
		})
		t.Run("400 InvalidRequest for a bad email or name", func(t *testing.T) {
			for name, body := range map[string]string{
				"email empty":             `{"name":"Dan","email":""}`,
				"email without @":         `{"name":"Dan","email":"dan.example.com"}`,
				"email without domain":    `{"name":"Dan","email":"dan@"}`,
				"email with display name": `{"name":"Dan","email":"Dan <dan@example.com>"}`,
				"email with header break": `{"name":"Dan","email":"dan@example.com\r\nBcc: eve@example.com"}`,
				"email with space":        `{"name":"Dan","email":"dan @example.com"}`,
				"email two addresses":     `{"name":"Dan","email":"dan@example.com, eve@example.com"}`,
				"email non-ASCII":         `{"name":"Dan","email":"dän@example.com"}`,
				"email too long":          `{"name":"Dan","email":"` + strings.Repeat("d", 250) + `@example.com"}`,
				"email not a string":      `{"name":"Dan","email":5}`,
				"name missing":            `{"email":"dan@example.com"}`,
				"name null":               `{"name":null}`,
				"name blank":              `{"name":"  "}`,
				"name with newline":       `{"name":"Dan\nEve"}`,
				"name of 201 chars":       `{"name":"` + strings.Repeat("n", 201) + `"}`,
			} {
				t.Run(name, func(t *testing.T) {
					apitest.RequireProblem(t, a.Send(t, http.MethodPut, "/accounts/dan", []byte(body)), http.StatusBadRequest, "InvalidRequest")
				})
			}
			apitest.RequireProblem(t, a.Get(t, "/accounts/dan"), http.StatusNotFound, "NotFound")
		})
		apitest.RequireBadPathIDs(t, a, http.MethodPut, "/accounts/%s", apitest.Obj{"name": "X"})
		apitest.RequireBodyErrors(t, a, http.MethodPut, "/accounts/erin", `{"name":"Erin","email":"erin@example.com"}`)
	})
}

// GET /accounts/{memberId}: 404 NotFound until something happens to the account; then 200
// with exactly the contract's members. An account that was only fined exists, with name and
// email null; the balance is fines minus payments, negative when in credit.
func TestHTTPGetAccount(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		t.Run("404 NotFound", func(t *testing.T) {
			apitest.RequireProblem(t, a.Get(t, "/accounts/alice"), http.StatusNotFound, "NotFound")
		})
		t.Run("200 for an opened account", func(t *testing.T) {
			r := a.Call(t, http.MethodPut, "/accounts/alice", apitest.Obj{"name": "Alice", "email": "alice@example.com"})
			apitest.RequireResult(t, r, http.StatusCreated, "account-alice")
			assert.Equal(t, apitest.Account{MemberID: "alice", Name: ptr("Alice"), Email: ptr("alice@example.com"), Version: 1},
				apitest.GetAccount(t, a, "alice"))
		})
		t.Run("200 for an account never opened: name and email null", func(t *testing.T) {
			apitest.Fine(t, a, "bob", 300, "Dune, 10 days late")
			r := a.Get(t, "/accounts/bob")
			assert.Contains(t, string(r.Body), `"name":null`)
			assert.Contains(t, string(r.Body), `"email":null`)
			assert.Equal(t, apitest.Account{MemberID: "bob", Balance: 300, Version: 1}, apitest.GetAccount(t, a, "bob"))
		})
		t.Run("balance goes negative when paid beyond what is owed", func(t *testing.T) {
			apitest.RequireResult(t, apitest.Pay(t, a, "bob", 500, "k1"), http.StatusCreated, "account-bob")
			assert.Equal(t, apitest.Account{MemberID: "bob", Balance: -200, Version: 2}, apitest.GetAccount(t, a, "bob"))
		})
		apitest.RequireBadPathIDs(t, a, http.MethodGet, "/accounts/%s", nil)
	})
}
