package accounts_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"library/internal/accounts"
	"library/internal/errs"
)

var (
	t0     = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	pinSet = accounts.PINSet{Hash: "hash-of-1234"}
)

// at is t0 plus minutes.
func at(minutes float64) time.Time { return t0.Add(time.Duration(minutes * float64(time.Minute))) }

// try is a TryPIN at t0+minutes under the default policy, of the PIN whose hash is "hash-of-1234"
// when right, of another when not; it counts the hashes checked.
func try(minutes float64, right bool, checked *int) accounts.TryPIN {
	return accounts.TryPIN{At: at(minutes), MaxTries: 5, Lockout: 15 * time.Minute, Right: func(hash string) bool {
		*checked++
		return right == (hash == pinSet.Hash)
	}}
}

// wrongs are n PINRefused a minute apart from t0, the last locking when n is 5.
func wrongs(n int) []accounts.Event {
	events := []accounts.Event{pinSet}
	for i := range n {
		refused := accounts.PINRefused{At: at(float64(i))}
		if i == 4 {
			refused.LockedUntil = at(float64(i) + 15)
		}
		events = append(events, refused)
	}
	return events
}

// Given events, when a try, then events or a refusal, and whether the hash was checked.
func TestTryPIN(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		given   []accounts.Event
		minutes float64
		right   bool
		then    []accounts.Event
		err     errs.Code
		checked bool
	}{
		{name: "no account", right: true, err: errs.PINInvalid},
		{name: "no PIN set", given: []accounts.Event{accounts.AccountOpened{Name: "Alice"}}, right: true, err: errs.PINInvalid},
		{name: "erased", given: []accounts.Event{pinSet, accounts.MemberErased{}}, right: true, err: errs.PINInvalid},
		{name: "right, no wrong before: nothing", given: []accounts.Event{pinSet}, right: true, checked: true},
		{name: "wrong", given: []accounts.Event{pinSet}, minutes: 1,
			then: []accounts.Event{accounts.PINRefused{At: at(1)}}, checked: true},
		{name: "right after wrongs: the count starts over", given: wrongs(3), minutes: 3, right: true,
			then: []accounts.Event{accounts.PINAccepted{At: at(3)}}, checked: true},
		{name: "the fifth wrong in a row locks", given: wrongs(4), minutes: 4,
			then: []accounts.Event{accounts.PINRefused{At: at(4), LockedUntil: at(19)}}, checked: true},
		{name: "locked: right is not checked", given: wrongs(5), minutes: 10, right: true, err: errs.PINLocked},
		{name: "locked: wrong is not checked, nor counted", given: wrongs(5), minutes: 18.9, err: errs.PINLocked},
		{name: "the lockout ended: right works, and records nothing", given: wrongs(5), minutes: 19, right: true, checked: true},
		{name: "the lockout ended: a wrong one is the first of a new count", given: wrongs(5), minutes: 19,
			then: []accounts.Event{accounts.PINRefused{At: at(19)}}, checked: true},
		{name: "a new PIN ends the lockout", given: append(wrongs(5), pinSet), minutes: 6,
			then: []accounts.Event{accounts.PINRefused{At: at(6)}}, checked: true},
		{name: "a right PIN in between starts the count over",
			given:   append(wrongs(4), accounts.PINAccepted{At: at(4)}, accounts.PINRefused{At: at(5)}),
			minutes: 6, then: []accounts.Event{accounts.PINRefused{At: at(6)}}, checked: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			checked := 0
			got, err := try(c.minutes, c.right, &checked).Decide(fold(c.given...))
			if c.err != "" {
				require.True(t, errs.Is(err, c.err), "want %s, got %v", c.err, err)
				require.Empty(t, got)
			} else {
				require.NoError(t, err)
				require.Equal(t, c.then, got)
			}
			require.Equal(t, c.checked, checked > 0, "whether the hash was checked")
			require.LessOrEqual(t, checked, 1, "the hash is checked once")
		})
	}
}

// A refusal says nothing but "invalid"; a lockout says until when.
func TestPINRefusalsSayLittle(t *testing.T) {
	t.Parallel()
	n := 0
	_, err := try(0, true, &n).Decide(fold())
	require.EqualError(t, err, "PINInvalid: invalid")
	_, err = try(10, true, &n).Decide(fold(wrongs(5)...))
	require.EqualError(t, err, "PINLocked: this card's PIN can't be used until 2026-12-01T09:19:00Z; try again then")
}

// SetPIN takes 4 to 8 ASCII digits, and its refusal never shows the PIN.
func TestSetPINValidates(t *testing.T) {
	t.Parallel()
	for _, pin := range []string{"1234", "00000000", "987654"} {
		require.NoError(t, accounts.SetPIN{PIN: pin}.Validate(), pin)
	}
	for _, pin := range []string{"", "123", "123456789", "12a4", "１２３４", "12 34", "-123", "1234\n"} {
		err := accounts.SetPIN{PIN: pin}.Validate()
		require.True(t, errs.Is(err, errs.InvalidRequest), "%q: %v", pin, err)
		require.EqualError(t, err, "InvalidRequest: pin must be 4 to 8 digits (0 to 9)")
	}
}

// The PIN's hash is personal, and never shown.
func TestPINSetIsSealedAndNeverShown(t *testing.T) {
	t.Parallel()
	sealed, err := pinSet.SealPersonal(func(v string) (string, error) { return "sealed(" + v + ")", nil })
	require.NoError(t, err)
	require.Equal(t, accounts.PINSet{Hash: "sealed(hash-of-1234)"}, sealed)
	require.Equal(t, accounts.PINSet{}, accounts.Shown(pinSet))
	require.Equal(t, accounts.PINRefused{At: t0}, accounts.Shown(accounts.PINRefused{At: t0}))
	require.True(t, fold(pinSet).PINSet())
	require.False(t, fold(pinSet, accounts.MemberErased{}).PINSet())
}

// The lockout's promises, over random tries by a guesser (and now and then the member, who knows
// the PIN, or sets a new one) at random times:
//   - a locked PIN is never checked, and a try while locked records nothing;
//   - among the wrong PINs checked with no right one or new PIN between them, every MaxTries-th
//     is followed by at least Lockout in which no PIN is checked: never more than MaxTries
//     wrong PINs are checked within a lockout window;
//   - a right PIN is accepted whenever the PIN is not locked;
//   - the state folded from what was recorded agrees with the decisions: it is what decides.
func TestPINLockoutProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		maxTries := rapid.IntRange(1, 6).Draw(t, "maxTries")
		lockout := time.Duration(rapid.IntRange(1, 30).Draw(t, "lockoutMinutes")) * time.Minute
		a := fold(pinSet)
		now := t0
		var lockedUntil time.Time // the model's
		var run []time.Time       // the wrong PINs checked since the last right one or new PIN
		steps := rapid.IntRange(1, 80).Draw(t, "steps")
		for i := range steps {
			now = now.Add(time.Duration(rapid.IntRange(0, 10*60).Draw(t, "seconds")) * time.Second)
			switch rapid.IntRange(0, 9).Draw(t, "who") {
			case 0: // the member sets a new PIN
				a = accounts.Apply(a, pinSet)
				lockedUntil, run = time.Time{}, nil
				continue
			case 1, 2:
				checked := 0
				got, err := accounts.TryPIN{At: now, MaxTries: maxTries, Lockout: lockout,
					Right: func(string) bool { checked++; return true }}.Decide(a)
				if now.Before(lockedUntil) {
					require.True(t, errs.Is(err, errs.PINLocked), "step %d: %v", i, err)
					require.Zero(t, checked, "step %d: a locked PIN is not checked", i)
					continue
				}
				require.NoError(t, err, "step %d: a right PIN is accepted when not locked", i)
				require.Equal(t, 1, checked)
				for _, e := range got {
					_, ok := e.(accounts.PINAccepted)
					require.True(t, ok, "step %d: %#v", i, e)
					a = accounts.Apply(a, e)
				}
				lockedUntil, run = time.Time{}, nil
			default: // the guesser
				checked := 0
				got, err := accounts.TryPIN{At: now, MaxTries: maxTries, Lockout: lockout,
					Right: func(string) bool { checked++; return false }}.Decide(a)
				if now.Before(lockedUntil) {
					require.True(t, errs.Is(err, errs.PINLocked), "step %d: %v", i, err)
					require.Zero(t, checked, "step %d: a locked PIN is not checked", i)
					require.Empty(t, got)
					continue
				}
				require.NoError(t, err, "step %d", i)
				require.Equal(t, 1, checked)
				require.Len(t, got, 1)
				refused := got[0].(accounts.PINRefused)
				a = accounts.Apply(a, refused)
				if n := len(run); n > 0 && n%maxTries == 0 {
					require.GreaterOrEqual(t, now.Sub(run[n-1]), lockout,
						"step %d: the %d-th wrong PIN is checked before the lockout after the %d-th ended", i, n+1, n)
				}
				run = append(run, now)
				if len(run)%maxTries == 0 {
					require.Equal(t, now.Add(lockout), refused.LockedUntil, "step %d: the %d-th wrong in a row locks", i, len(run))
					lockedUntil = refused.LockedUntil
				} else {
					require.True(t, refused.LockedUntil.IsZero(), "step %d: only every %d-th wrong locks", i, maxTries)
				}
			}
		}
	})
}
