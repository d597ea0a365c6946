package accountsapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/app"
	"library/internal/errs"
	"library/internal/eventstore/pgstore"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
)

// PUT /accounts/{memberId}/pin: 201 PINSet with no hash in it; GET says pinSet; a retry under its
// key gets the first answer byte for byte, another PIN under it 422; a malformed PIN is 400
// naming the rule, never the PIN; the history shows PINSet without its hash.
func TestHTTPSetPIN(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		pin := func(member, pin string, headers ...string) apitest.Response {
			return a.Call(t, http.MethodPut, "/accounts/"+member+"/pin", apitest.Obj{"pin": pin}, headers...)
		}
		apitest.SetContact(t, a, "alice", "Alice", "")
		assert.False(t, apitest.GetAccount(t, a, "alice").PINSet)

		first := pin("alice", "24680", "Idempotency-Key", "pin-alice")
		res := apitest.RequireResult(t, first, http.StatusCreated, "account-alice")
		apitest.RequireEvent(t, res, "PINSet", `{}`)
		assert.NotContains(t, string(first.Body), "argon2")
		apitest.RequireReplay(t, first, pin("alice", "24680", "Idempotency-Key", "pin-alice"))
		p := apitest.RequireProblem(t, pin("alice", "13579", "Idempotency-Key", "pin-alice"), http.StatusUnprocessableEntity, "IdempotencyKeyReused")
		assert.NotContains(t, p.Detail, "13579")
		assert.True(t, apitest.GetAccount(t, a, "alice").PINSet)

		for _, bad := range []string{"", "123", "123456789", "12a4", "12 34", "١٢٣٤"} {
			r := pin("alice", bad)
			p := apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
			assert.Equal(t, "pin must be 4 to 8 digits (0 to 9)", p.Detail)
			if bad != "" {
				assert.NotContains(t, string(r.Body), bad, "the PIN is never echoed")
			}
		}
		apitest.RequireBodyErrors(t, a, http.MethodPut, "/accounts/alice/pin", `{"pin":"1234"}`)

		// A new PIN, with no key, is recorded again (a new hash, a new salt).
		apitest.RequireResult(t, pin("alice", "24680"), http.StatusCreated, "account-alice")

		for _, path := range []string{"/accounts/alice/history", "/accounts/alice/export"} {
			r := a.Get(t, path)
			require.Equal(t, http.StatusOK, r.Status, "%s: %s", path, r.Body)
			assert.Contains(t, string(r.Body), `"type":"PINSet"`, path)
			assert.NotContains(t, string(r.Body), "argon2", path)
			assert.NotContains(t, string(r.Body), "hash", path)
		}
	})
}

// On PostgreSQL, with a second accounts.Service on the service's database (as a kiosk server
// would have): the PIN the member set over HTTP is checked there; it is in no row of the events
// table, and its hash is there only sealed; once the member is erased, no PIN of theirs can be
// checked, and their card is given up.
func TestHTTPPINOnPostgres(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg := app.Config{DatabaseURL: pgtest.NewDatabase(t)}
	a := apitest.Launch(t, cfg, apitest.ServiceLogger(t, cfg)).API("postgres")
	pool := pgtest.Connect(t, cfg.DatabaseURL)
	store := pgstore.New(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(store.Close)
	keyring, err := app.Keyring(app.Config{PIIKey: apitest.PIIKey}, store)
	require.NoError(t, err)
	kiosk := accounts.NewService(store, aggregate.Options{Cipher: keyring})

	const pin = "860531"
	apitest.SetContact(t, a, "erin", "Erin", "")
	apitest.RequireResult(t, a.Call(t, http.MethodPut, "/accounts/erin/card", apitest.Obj{"cardNumber": "E-1"}), http.StatusCreated, "account-erin")
	apitest.RequireResult(t, a.Call(t, http.MethodPut, "/accounts/erin/pin", apitest.Obj{"pin": pin}, "Idempotency-Key", "erin-pin"),
		http.StatusCreated, "account-erin")

	member, err := kiosk.CardHolder(ctx, "e-1")
	require.NoError(t, err)
	require.Equal(t, "erin", member)
	require.NoError(t, kiosk.CheckPIN(ctx, member, pin, aggregate.Origin{}))
	require.True(t, errs.Is(kiosk.CheckPIN(ctx, member, "000000", aggregate.Origin{}), errs.PINInvalid))

	_, opened, err := kiosk.Everything(ctx, "erin")
	require.NoError(t, err)
	var hash string
	for _, e := range opened {
		if set, ok := e.(accounts.PINSet); ok {
			hash = set.Hash
		}
	}
	require.True(t, strings.HasPrefix(hash, "$argon2id$"), hash)
	for _, text := range []string{pin, hash, strings.Split(hash, "$")[5], "argon2"} {
		var rows int
		require.NoError(t, pool.QueryRow(ctx,
			`SELECT count(*) FROM events WHERE strpos(data::text, $1) > 0 OR strpos(metadata::text, $1) > 0`, text).Scan(&rows))
		assert.Zero(t, rows, "%q is in no event", text)
	}
	var sealed string
	require.NoError(t, pool.QueryRow(ctx, `SELECT data->>'hash' FROM events WHERE type = 'PINSet'`).Scan(&sealed))
	assert.NotEmpty(t, sealed, "the hash is kept, sealed")

	apitest.RequireResult(t, a.Call(t, http.MethodPost, "/accounts/erin/erasure", nil), http.StatusCreated, "account-erin")
	err = kiosk.CheckPIN(ctx, "erin", pin, aggregate.Origin{})
	assert.True(t, errs.Is(err, errs.PINInvalid), "erased: %v", err)
	_, err = kiosk.CardHolder(ctx, "E-1")
	assert.True(t, errs.Is(err, errs.NotFound), "erased: the card is given up: %v", err)
}
