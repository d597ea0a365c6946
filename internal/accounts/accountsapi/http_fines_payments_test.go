package accountsapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// amountErrors are amounts the contract refuses with 400: wrong JSON types, fractions,
// numbers out of int64 range, and integers outside 1..100000000.
var amountErrors = map[string]string{
	"string":    `"300"`,
	"fraction":  `3.5`,
	"3.0":       `3.0`,
	"1e30":      `1e30`,
	"zero":      `0`,
	"negative":  `-300`,
	"too large": `100000001`,
	"null":      `null`,
	"bool":      `true`,
	"object":    `{"cents":300}`,
}

// POST /accounts/{memberId}/fines: 201 FineCharged, also on an account never opened; a fine
// for a loan is charged once (200 and no events after); amounts outside 1..100000000 and
// wrong types are 400.
func TestHTTPChargeFine(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		fines := func(t *testing.T, memberID string, body any, headers ...string) apitest.Response {
			t.Helper()
			return a.Call(t, http.MethodPost, "/accounts/"+memberID+"/fines", body, headers...)
		}
		t.Run("201 FineCharged on an account never opened", func(t *testing.T) {
			res := apitest.RequireResult(t, fines(t, "alice", apitest.Obj{"amount": 300, "reason": "Dune, 10 days late"}), http.StatusCreated, "account-alice")
			assert.EqualValues(t, 1, res.Version)
			apitest.RequireEvent(t, res, "FineCharged", `{"amount":300,"reason":"Dune, 10 days late"}`)
		})
		t.Run("without a loanId every fine is charged", func(t *testing.T) {
			res := apitest.RequireResult(t, fines(t, "alice", apitest.Obj{"amount": 300, "reason": "Dune, 10 days late"}), http.StatusCreated, "account-alice")
			assert.EqualValues(t, 2, res.Version)
			assert.EqualValues(t, 600, apitest.GetAccount(t, a, "alice").Balance)
		})
		t.Run("a fine by hand can't name a loan: that is the late-fines saga's", func(t *testing.T) {
			p := apitest.RequireProblem(t, fines(t, "alice", apitest.Obj{"amount": 1, "reason": "late", "loanId": "loan-1"}), http.StatusBadRequest, "InvalidRequest")
			assert.Contains(t, p.Detail, "loanId")
			assert.EqualValues(t, 600, apitest.GetAccount(t, a, "alice").Balance, "nothing charged")
		})
		t.Run("fines without a key never push a payment's key out of the window", func(t *testing.T) {
			apitest.RequireResult(t, fines(t, "dave", apitest.Obj{"amount": 500, "reason": "Lost book"}), http.StatusCreated, "account-dave")
			payDave := func() apitest.Response {
				return a.Call(t, http.MethodPost, "/accounts/dave/payments", apitest.Obj{"amount": 200}, "Idempotency-Key", "dave-pay-1")
			}
			first := payDave()
			apitest.RequireResult(t, first, http.StatusCreated, "account-dave")
			for range 101 { // COMMAND_IDS_PER_STREAM is 100
				apitest.RequireResult(t, fines(t, "dave", apitest.Obj{"amount": 1, "reason": "late"}), http.StatusCreated, "account-dave")
			}
			apitest.RequireReplay(t, first, payDave())
			assert.EqualValues(t, 500-200+101, apitest.GetAccount(t, a, "dave").Balance, "paid once")
		})
		t.Run("amount limits are inclusive", func(t *testing.T) {
			apitest.RequireResult(t, fines(t, "bob", apitest.Obj{"amount": 1, "reason": "min"}), http.StatusCreated, "account-bob")
			apitest.RequireResult(t, fines(t, "bob", apitest.Obj{"amount": 100000000, "reason": "max"}), http.StatusCreated, "account-bob")
		})
		t.Run("a repeat with its Idempotency-Key is replayed; another payload is 422", func(t *testing.T) {
			body := apitest.Obj{"amount": 120, "reason": "Lost card"}
			first := fines(t, "carol", body, "Idempotency-Key", "fine-1")
			apitest.RequireResult(t, first, http.StatusCreated, "account-carol")
			apitest.RequireReplay(t, first, fines(t, "carol", body, "Idempotency-Key", "fine-1"))
			p := apitest.RequireProblem(t, fines(t, "carol", apitest.Obj{"amount": 121, "reason": "Lost card"}, "Idempotency-Key", "fine-1"),
				http.StatusUnprocessableEntity, "IdempotencyKeyReused")
			assert.Contains(t, p.Detail, `"chargeFine"`)
			assert.EqualValues(t, 120, apitest.GetAccount(t, a, "carol").Balance)
		})
		t.Run("400 InvalidRequest for bad fields", func(t *testing.T) {
			bad := map[string]string{
				"amount missing":    `{"reason":"late"}`,
				"reason missing":    `{"amount":300}`,
				"reason blank":      `{"amount":300,"reason":" "}`,
				"reason of 501":     `{"amount":300,"reason":"` + strings.Repeat("r", 501) + `"}`,
				"loanId given":      `{"amount":300,"reason":"late","loanId":"l-1"}`,
				"loanId not string": `{"amount":300,"reason":"late","loanId":1}`,
			}
			for name, amount := range amountErrors {
				bad["amount "+name] = `{"amount":` + amount + `,"reason":"late"}`
			}
			for name, body := range bad {
				t.Run(name, func(t *testing.T) {
					apitest.RequireProblem(t, a.Send(t, http.MethodPost, "/accounts/dan/fines", []byte(body)), http.StatusBadRequest, "InvalidRequest")
				})
			}
			apitest.RequireProblem(t, a.Get(t, "/accounts/dan"), http.StatusNotFound, "NotFound")
		})
		apitest.RequireBadPathIDs(t, a, http.MethodPost, "/accounts/%s/fines", apitest.Obj{"amount": 300, "reason": "late"})
		apitest.RequireBodyErrors(t, a, http.MethodPost, "/accounts/erin/fines", `{"amount":300,"reason":"late"}`)
	})
}

// POST /accounts/{memberId}/payments: the Idempotency-Key is required and checked; 201
// PaymentReceived; 409 NothingToPay at a balance <= 0; a repeat is replayed byte for byte;
// the key with another payload or another command is 422 IdempotencyKeyReused naming "pay".
func TestHTTPPay(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		const path = "/accounts/alice/payments"
		t.Run("409 NothingToPay on an account never charged", func(t *testing.T) {
			apitest.RequireProblem(t, apitest.Pay(t, a, "alice", 300, "k0"), http.StatusConflict, "NothingToPay")
		})
		apitest.Fine(t, a, "alice", 1000, "Dune, 10 days late")
		t.Run("400 IdempotencyKeyMissing", func(t *testing.T) {
			apitest.RequireProblem(t, a.Call(t, http.MethodPost, path, apitest.Obj{"amount": 300}), http.StatusBadRequest, "IdempotencyKeyMissing")
			assert.EqualValues(t, 1, apitest.GetAccount(t, a, "alice").Version, "nothing recorded")
		})
		t.Run("400 InvalidRequest for a bad key", func(t *testing.T) {
			for name, key := range map[string]string{
				"256 characters":      strings.Repeat("k", 256),
				"control character":   "ab\tcd",
				"non-ASCII":           "clé",
				"empty quoted":        `""`,
				"unterminated quote":  `"abc`,
				"bad escape":          `"a\bc"`,
				"257 quoted":          `"` + strings.Repeat("k", 256) + `"`,
				"quoted control char": "\"a\tb\"",
			} {
				t.Run(name, func(t *testing.T) {
					apitest.RequireProblem(t, apitest.Pay(t, a, "alice", 300, key), http.StatusBadRequest, "InvalidRequest")
				})
			}
			t.Run("two keys", func(t *testing.T) {
				r := a.Call(t, http.MethodPost, path, apitest.Obj{"amount": 300}, "Idempotency-Key", "k1", "Idempotency-Key", "k2")
				apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
			})
			assert.EqualValues(t, 1, apitest.GetAccount(t, a, "alice").Version, "nothing recorded")
		})
		t.Run("400 InvalidRequest for a bad amount", func(t *testing.T) {
			for name, amount := range amountErrors {
				t.Run(name, func(t *testing.T) {
					r := a.Send(t, http.MethodPost, path, []byte(`{"amount":`+amount+`}`), "Idempotency-Key", "bad-amount")
					apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
				})
			}
		})
		var first apitest.Response
		t.Run("201 PaymentReceived, after a refused attempt with the same key", func(t *testing.T) {
			// A refused command records nothing, so its key is free for the corrected retry.
			first = apitest.Pay(t, a, "alice", 300, "bad-amount")
			res := apitest.RequireResult(t, first, http.StatusCreated, "account-alice")
			assert.EqualValues(t, 2, res.Version)
			apitest.RequireEvent(t, res, "PaymentReceived", `{"amount":300}`)
		})
		t.Run("a repeat is replayed byte for byte", func(t *testing.T) {
			apitest.RequireReplay(t, first, apitest.Pay(t, a, "alice", 300, "bad-amount"))
		})
		t.Run("255-character key; quoted and unquoted keys are one key", func(t *testing.T) {
			long := strings.Repeat("k", 255)
			apitest.RequireResult(t, apitest.Pay(t, a, "alice", 100, long), http.StatusCreated, "account-alice")
			unquoted := apitest.Pay(t, a, "alice", 100, "abc")
			apitest.RequireResult(t, unquoted, http.StatusCreated, "account-alice")
			apitest.RequireReplay(t, unquoted, apitest.Pay(t, a, "alice", 100, `"abc"`))
			quoted := apitest.Pay(t, a, "alice", 100, `"q\"uo\\te"`)
			apitest.RequireResult(t, quoted, http.StatusCreated, "account-alice")
			apitest.RequireReplay(t, quoted, apitest.Pay(t, a, "alice", 100, `q"uo\te`))
		})
		t.Run("422 IdempotencyKeyReused for another amount, naming pay", func(t *testing.T) {
			p := apitest.RequireProblem(t, apitest.Pay(t, a, "alice", 301, "bad-amount"), http.StatusUnprocessableEntity, "IdempotencyKeyReused")
			assert.Contains(t, p.Detail, `"pay"`)
		})
		t.Run("422 IdempotencyKeyReused for a fine, naming pay", func(t *testing.T) {
			r := a.Call(t, http.MethodPost, "/accounts/alice/fines", apitest.Obj{"amount": 300, "reason": "late"}, "Idempotency-Key", "bad-amount")
			p := apitest.RequireProblem(t, r, http.StatusUnprocessableEntity, "IdempotencyKeyReused")
			assert.Contains(t, p.Detail, `"pay"`)
		})
		t.Run("a key belongs to one stream", func(t *testing.T) {
			apitest.Fine(t, a, "bob", 300, "late")
			apitest.RequireResult(t, apitest.Pay(t, a, "bob", 300, "bad-amount"), http.StatusCreated, "account-bob")
		})
		t.Run("409 NothingToPay at a balance of exactly 0", func(t *testing.T) {
			require.EqualValues(t, 0, apitest.GetAccount(t, a, "bob").Balance)
			apitest.RequireProblem(t, apitest.Pay(t, a, "bob", 1, "settled"), http.StatusConflict, "NothingToPay")
			assert.EqualValues(t, 2, apitest.GetAccount(t, a, "bob").Version, "nothing recorded")
		})
		t.Run("409 NothingToPay once in credit", func(t *testing.T) {
			acc := apitest.GetAccount(t, a, "alice")
			require.EqualValues(t, 1000-300-100-100-100, acc.Balance)
			apitest.RequireResult(t, apitest.Pay(t, a, "alice", acc.Balance+50, "overpay"), http.StatusCreated, "account-alice")
			assert.EqualValues(t, -50, apitest.GetAccount(t, a, "alice").Balance)
			apitest.RequireProblem(t, apitest.Pay(t, a, "alice", 10, "after-credit"), http.StatusConflict, "NothingToPay")
		})
		apitest.RequireBadPathIDs(t, a, http.MethodPost, "/accounts/%s/payments", apitest.Obj{"amount": 300}, "Idempotency-Key", "k")
		apitest.RequireBodyErrors(t, a, http.MethodPost, "/accounts/bob/payments", `{"amount":300}`, "Idempotency-Key", "k")
	})
}
