package app_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/pgtest"
)

// An Idempotency-Key names a request on one stream only. The same key, with the same body, on
// another member's account is a new payment recorded there and answered with that account's
// own result, never with the first account's; and a repeat on either account gets that
// account's own first answer back, byte for byte.
func TestIdempotencyKeyBelongsToOneStream(t *testing.T) {
	t.Parallel()
	forEachStore(t, app.Config{}, func(t *testing.T, a *api) {
		testKeyOnTwoStreams(t, a, a)
	})
}

// The same across two replicas on one database: each replica keeps the aggregates it used in
// memory, and neither may answer for the other account from what it kept.
func TestIdempotencyKeyBelongsToOneStreamAcrossReplicas(t *testing.T) {
	t.Parallel()
	databaseURL := pgtest.NewDatabase(t)
	first := &api{Base: startService(t, app.Config{DatabaseURL: databaseURL, ReplicaID: "a"}), Store: "postgres"}
	second := &api{Base: startService(t, app.Config{DatabaseURL: databaseURL, ReplicaID: "b"}), Store: "postgres"}
	testKeyOnTwoStreams(t, first, second)
}

// testKeyOnTwoStreams pays into member A through x and into member B through y with one key,
// then repeats each payment through the other service.
func testKeyOnTwoStreams(t *testing.T, x, y *api) {
	t.Helper()
	const key = "one-key-for-two-members"
	// A owes 700 in two fines, B 300 in one: their payments land at different versions.
	fine(t, x, "member-a", 500, "Dune, 20 days late")
	fine(t, x, "member-a", 200, "Emma, 8 days late")
	fine(t, y, "member-b", 300, "Ulysses, 12 days late")

	paidA := pay(t, x, "member-a", 300, key)
	resA := requireResult(t, paidA, http.StatusCreated, "account-member-a")
	requireEvent(t, resA, "PaymentReceived", `{"amount":300}`)
	assert.EqualValues(t, 3, resA.Version)

	paidB := pay(t, y, "member-b", 300, key)
	resB := requireResult(t, paidB, http.StatusCreated, "account-member-b")
	assert.Empty(t, paidB.Header.Get("Idempotent-Replayed"), "B's payment is not a replay of A's")
	requireEvent(t, resB, "PaymentReceived", `{"amount":300}`)
	assert.EqualValues(t, 2, resB.Version, "recorded on B's stream, after B's fine")
	assert.Greater(t, resB.Position, resA.Position, "a new event, not A's")
	assert.NotEqual(t, string(paidA.Body), string(paidB.Body))

	// Each repeat, through either service and in any order, is its own account's first answer.
	requireReplay(t, paidB, pay(t, x, "member-b", 300, key))
	requireReplay(t, paidA, pay(t, y, "member-a", 300, key))
	requireReplay(t, paidA, pay(t, x, "member-a", 300, key))
	requireReplay(t, paidB, pay(t, y, "member-b", 300, key))

	// The key's payload is checked per stream too: on a third account the key is free for
	// another amount, and on A it is still A's payment of 300.
	fine(t, x, "member-c", 100, "Emma, 4 days late")
	paidC := pay(t, y, "member-c", 100, key)
	requireEvent(t, requireResult(t, paidC, http.StatusCreated, "account-member-c"), "PaymentReceived", `{"amount":100}`)
	requireProblem(t, pay(t, x, "member-a", 100, key), http.StatusUnprocessableEntity, "IdempotencyKeyReused")

	// Each account paid once.
	for _, c := range []struct {
		api              *api
		member           string
		balance, version int64
	}{{y, "member-a", 400, 3}, {x, "member-b", 0, 2}, {x, "member-c", 0, 2}} {
		acc := getAccount(t, c.api, c.member)
		require.Equal(t, c.balance, acc.Balance, c.member)
		require.Equal(t, c.version, acc.Version, c.member)
	}
}
