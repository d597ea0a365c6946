package accounts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/secrethash"
	"library/internal/testkit/testclock"
)

// cheapHashes keep the tests quick; the hash's cost is read from the hash when it is checked.
var cheapHashes = secrethash.Params{Time: 1, Memory: 64, Threads: 1}

// pinServices are n services on one log, as n replicas are, with the PIN policy's clock clk.
func pinServices(log keyedLog, clk *testclock.Clock, n int) []*accounts.Service {
	services := make([]*accounts.Service, n)
	for i := range services {
		services[i] = accounts.NewService(log, aggregate.Options{Cipher: keyring(log)}).
			WithPINs(accounts.PINPolicy{Now: clk.Now, Hash: cheapHashes})
	}
	return services
}

// Five wrong PINs from two replicas lock the PIN: the sixth try, right, is PINLocked and
// recorded nothing; once the clock passes the lockout, the right PIN works, and the count
// started over.
func TestPINLockoutAcrossReplicas(t *testing.T) {
	t.Parallel()
	forEachKeyedLog(t, func(t *testing.T, log keyedLog) {
		ctx := context.Background()
		clk := testclock.New(t0)
		replicas := pinServices(log, clk, 2)
		_, err := replicas[0].SetPIN(ctx, "alice", accounts.SetPIN{PIN: "2468"}, aggregate.Origin{})
		require.NoError(t, err)
		require.NoError(t, replicas[1].CheckPIN(ctx, "alice", "2468", aggregate.Origin{}))

		var wg sync.WaitGroup
		for i := range 5 {
			wg.Go(func() {
				err := replicas[i%2].CheckPIN(ctx, "alice", "1357", aggregate.Origin{})
				require.True(t, errs.Is(err, errs.PINInvalid), "try %d: %v", i, err)
			})
		}
		wg.Wait()
		_, before, err := replicas[0].Get(ctx, "alice")
		require.NoError(t, err)

		for i, s := range replicas {
			err := s.CheckPIN(ctx, "alice", "2468", aggregate.Origin{})
			require.True(t, errs.Is(err, errs.PINLocked), "replica %d: %v", i, err)
			require.ErrorContains(t, err, "until 2026-12-01T09:15:00Z")
		}
		_, after, err := replicas[1].Get(ctx, "alice")
		require.NoError(t, err)
		require.Equal(t, before, after, "a try while locked records nothing")

		clk.Advance(15 * time.Minute)
		require.NoError(t, replicas[1].CheckPIN(ctx, "alice", "2468", aggregate.Origin{}))
		_, after, err = replicas[0].Get(ctx, "alice")
		require.NoError(t, err)
		require.Equal(t, before, after, "the lockout ended and the count started over: a right PIN records nothing")
		for i := range 4 {
			err := replicas[0].CheckPIN(ctx, "alice", "0000", aggregate.Origin{})
			require.True(t, errs.Is(err, errs.PINInvalid), "try %d: %v", i, err)
		}
		require.NoError(t, replicas[0].CheckPIN(ctx, "alice", "2468", aggregate.Origin{}), "four wrong after a lockout lock nothing")
	})
}

// The PIN is stored nowhere: not in the events, nor their metadata, nor the answer, which holds no
// hash either; a retry under the same key with the same PIN gets the first answer, with
// another PIN it is refused. After an erasure no PIN can be checked.
func TestPINIsNeverStored(t *testing.T) {
	t.Parallel()
	forEachKeyedLog(t, func(t *testing.T, log keyedLog) {
		ctx := context.Background()
		s := pinServices(log, testclock.New(t0), 1)[0]
		const pin = "73915"
		o := aggregate.Origin{CommandID: "set-pin-1"}
		first, err := s.SetPIN(ctx, "alice", accounts.SetPIN{PIN: pin}, o)
		require.NoError(t, err)
		answer, err := json.Marshal(first)
		require.NoError(t, err)
		require.Contains(t, string(answer), `"type":"PINSet"`)
		require.Contains(t, string(answer), `"data":{}`, "no hash in the answer")

		again, err := s.SetPIN(ctx, "alice", accounts.SetPIN{PIN: pin}, o)
		require.NoError(t, err)
		require.True(t, again.Replayed)
		replayed, err := json.Marshal(again)
		require.NoError(t, err)
		require.Equal(t, string(answer), string(replayed))

		_, err = s.SetPIN(ctx, "alice", accounts.SetPIN{PIN: "1111"}, o)
		require.True(t, errs.Is(err, errs.IdempotencyKeyReused), "%v", err)
		require.NoError(t, s.CheckPIN(ctx, "alice", pin, aggregate.Origin{}), "the first PIN stands")
		require.Error(t, s.CheckPIN(ctx, "alice", "9999", aggregate.Origin{}))

		_, err = s.SetPIN(ctx, "alice", accounts.SetPIN{PIN: "12a4"}, aggregate.Origin{})
		require.EqualError(t, err, "InvalidRequest: pin must be 4 to 8 digits (0 to 9)")

		stored, err := log.ReadStream(ctx, "account-alice", 0)
		require.NoError(t, err)
		_, opened, err := s.Everything(ctx, "alice")
		require.NoError(t, err)
		hash := opened[0].(accounts.PINSet).Hash
		require.True(t, strings.HasPrefix(hash, "$argon2id$"), hash)
		for _, e := range stored {
			meta, err := json.Marshal(e.Metadata)
			require.NoError(t, err)
			for _, text := range []string{string(e.Data), string(meta)} {
				require.NotContains(t, text, pin, "%s", e.Type)
				require.NotContains(t, text, hash, "%s: the hash is sealed", e.Type)
				require.NotContains(t, text, "argon2", "%s: the hash is sealed", e.Type)
			}
		}

		_, err = s.Erase(ctx, "alice", aggregate.Origin{})
		require.NoError(t, err)
		err = s.CheckPIN(ctx, "alice", pin, aggregate.Origin{})
		require.True(t, errs.Is(err, errs.PINInvalid), "erased: %v", err)
		fresh := pinServices(log, testclock.New(t0), 1)[0] // folds the log again, the key gone
		err = fresh.CheckPIN(ctx, "alice", pin, aggregate.Origin{})
		require.True(t, errs.Is(err, errs.PINInvalid), "erased, read again: %v", err)
	})
}

// No PIN, no account, or a member id that is none: "invalid", and nothing recorded.
func TestCheckPINWithoutAPIN(t *testing.T) {
	t.Parallel()
	forEachKeyedLog(t, func(t *testing.T, log keyedLog) {
		ctx := context.Background()
		s := pinServices(log, testclock.New(t0), 1)[0]
		_, err := s.SetContact(ctx, "bob", accounts.SetContact{Name: "Bob"}, aggregate.Origin{})
		require.NoError(t, err)
		for _, member := range []string{"bob", "nobody", "not a member id"} {
			err := s.CheckPIN(ctx, member, "1234", aggregate.Origin{})
			require.EqualError(t, err, "PINInvalid: invalid", member)
		}
		_, version, err := s.Get(ctx, "bob")
		require.NoError(t, err)
		require.EqualValues(t, 1, version)
	})
}

// Requests with one key and one PIN, at once, all get the first answer, without a hash, and one
// of them recorded it: those decided with it are answered from its events, which they share.
func TestConcurrentSetPINWithOneKey(t *testing.T) {
	t.Parallel()
	forEachKeyedLog(t, func(t *testing.T, log keyedLog) {
		ctx := context.Background()
		s := pinServices(log, testclock.New(t0), 1)[0]
		const n = 8
		answers := make([]string, n)
		firsts := make([]bool, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				result, err := s.SetPIN(ctx, "alice", accounts.SetPIN{PIN: "5150"}, aggregate.Origin{CommandID: "one-pin"})
				if !assert.NoError(t, err, "request %d", i) {
					return
				}
				b, _ := json.Marshal(result)
				answers[i], firsts[i] = string(b), !result.Replayed
			})
		}
		wg.Wait()
		for i := range answers {
			require.Equal(t, answers[0], answers[i], "request %d", i)
		}
		require.Equal(t, 1, strings.Count(fmt.Sprint(firsts), "true"), "one request recorded the PIN")
		require.NotContains(t, answers[0], "argon2")
	})
}
