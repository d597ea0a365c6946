package terminals_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/secrethash"
	"library/internal/terminals"
)

func newService(store *eventstore.Memory) *terminals.Service {
	return terminals.NewService(store, aggregate.Options{}, func() time.Time { return now })
}

// storedText is every event of the log as stored, data and metadata, as text.
func storedText(t *testing.T, store *eventstore.Memory) string {
	t.Helper()
	events, err := store.ReadAll(context.Background(), eventstore.Checkpoint{}, 0)
	require.NoError(t, err)
	var all strings.Builder
	for _, e := range events {
		meta, err := json.Marshal(e.Metadata)
		require.NoError(t, err)
		all.WriteString(e.StreamID + " " + e.Type + " " + string(e.Data) + " " + string(meta) + "\n")
	}
	return all.String()
}

// A terminal added logs in with the password Add gave, and with no other; a name is not
// case-sensitive; the log holds the password's hash and never the password.
func TestAddListLoginRemove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	s := newService(store)

	password, err := s.Add(ctx, "Kiosk-1", aggregate.Origin{})
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`^[A-Z2-7]{26}$`), password, "130 bits of base32, no padding")
	other, err := s.Add(ctx, "kiosk-2", aggregate.Origin{})
	require.NoError(t, err)
	require.NotEqual(t, password, other)

	list, err := s.List(ctx)
	require.NoError(t, err)
	require.Equal(t, []terminals.Terminal{{Name: "kiosk-1", AddedAt: nowUTC}, {Name: "kiosk-2", AddedAt: nowUTC}}, list)

	require.NoError(t, s.Login(ctx, "kiosk-1", password))
	require.NoError(t, s.Login(ctx, "KIOSK-1", password), "a name is not case-sensitive")
	require.NoError(t, s.Login(ctx, "kiosk-2", other))
	require.True(t, errs.Is(s.Login(ctx, "kiosk-1", other), errs.Unauthorized), "another terminal's password")
	require.True(t, errs.Is(s.Login(ctx, "kiosk-1", strings.ToLower(password)), errs.Unauthorized), "a password is case-sensitive")

	stored := storedText(t, store)
	require.NotContains(t, stored, password)
	require.NotContains(t, stored, other)
	require.Contains(t, stored, "terminals-registry TerminalAdded")
	events, err := store.ReadStream(ctx, terminals.StreamID(), 0)
	require.NoError(t, err)
	var first terminals.TerminalAdded
	require.NoError(t, json.Unmarshal(events[0].Data, &first))
	ok, err := secrethash.Verify(password, string(first.Hash))
	require.NoError(t, err)
	require.True(t, ok, "the log keeps the password's hash")

	require.NoError(t, s.Remove(ctx, "KIOSK-1", aggregate.Origin{}))
	require.True(t, errs.Is(s.Login(ctx, "kiosk-1", password), errs.Unauthorized), "a terminal removed no longer logs in")
	require.True(t, errs.Is(s.Remove(ctx, "kiosk-1", aggregate.Origin{}), errs.NotFound))
	list, err = s.List(ctx)
	require.NoError(t, err)
	require.Equal(t, []terminals.Terminal{{Name: "kiosk-2", AddedAt: nowUTC}}, list)

	again, err := s.Add(ctx, "kiosk-1", aggregate.Origin{})
	require.NoError(t, err, "a name removed can be added again, with a new password")
	require.NoError(t, s.Login(ctx, "kiosk-1", again))
	require.True(t, errs.Is(s.Login(ctx, "kiosk-1", password), errs.Unauthorized), "the old password no longer logs in")
}

// A name added already is refused, naming it, and the password it had still logs in; so is a
// command id that added a terminal before, whose password can't be shown twice.
func TestAddingANameTwiceIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newService(eventstore.NewMemory(nil))
	password, err := s.Add(ctx, "kiosk-1", aggregate.Origin{CommandID: "k1"})
	require.NoError(t, err)

	_, err = s.Add(ctx, "Kiosk-1", aggregate.Origin{})
	require.True(t, errs.Is(err, errs.TerminalExists), "%v", err)
	require.ErrorContains(t, err, "terminal kiosk-1 is added already")
	_, err = s.Add(ctx, "kiosk-1", aggregate.Origin{CommandID: "k1"})
	require.True(t, errs.Is(err, errs.TerminalExists), "a command sent again: %v", err)
	require.NoError(t, s.Login(ctx, "kiosk-1", password))

	_, err = s.Add(ctx, "kiosk 1", aggregate.Origin{})
	require.True(t, errs.Is(err, errs.InvalidRequest), "%v", err)
	require.True(t, errs.Is(s.Remove(ctx, "", aggregate.Origin{}), errs.InvalidRequest))
}

// Every failed login is the same error, whatever failed: a name unknown, a name that can't be
// one, a wrong password, one too long to be any, an empty one.
func TestEveryFailedLoginIsTheSame(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newService(eventstore.NewMemory(nil))
	password, err := s.Add(ctx, "kiosk-1", aggregate.Origin{})
	require.NoError(t, err)
	var answers []string
	for _, c := range [][2]string{
		{"kiosk-9", password}, {"kiosk-1", "WRONG"}, {"kiosk-1", ""}, {"", password}, {"kiosk|1", password},
		{"kiosk-1", password + strings.Repeat("A", 300)}, {strings.Repeat("k", 100), password},
	} {
		err := s.Login(ctx, c[0], c[1])
		require.True(t, errs.Is(err, errs.Unauthorized), "%q: %v", c[0], err)
		require.NotContains(t, err.Error(), password)
		answers = append(answers, err.Error())
	}
	for _, a := range answers {
		require.Equal(t, answers[0], a)
	}
}

// A terminal added through one service logs in through another on the same log (another
// replica, or the command line beside the server), and removed through it stops logging in
// there too, though the first keeps the registry in memory.
func TestAnotherServiceSeesTheRegistryChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	server, cli := newService(store), newService(store)
	require.True(t, errs.Is(server.Login(ctx, "kiosk-1", "x"), errs.Unauthorized))
	password, err := cli.Add(ctx, "kiosk-1", aggregate.Origin{})
	require.NoError(t, err)
	require.NoError(t, server.Login(ctx, "kiosk-1", password))
	require.NoError(t, cli.Remove(ctx, "kiosk-1", aggregate.Origin{}))
	require.True(t, errs.Is(server.Login(ctx, "kiosk-1", password), errs.Unauthorized))
}

// BenchmarkLogin shows that a login costs about the same for a wrong password and for a name
// the registry does not hold: both check one hash of the same cost.
func BenchmarkLogin(b *testing.B) {
	ctx := context.Background()
	s := newService(eventstore.NewMemory(nil))
	password, err := s.Add(ctx, "kiosk-1", aggregate.Origin{})
	require.NoError(b, err)
	for _, c := range []struct{ name, terminal, password string }{
		{"right", "kiosk-1", password}, {"wrong password", "kiosk-1", "WRONG"}, {"unknown name", "kiosk-9", password},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				_ = s.Login(ctx, c.terminal, c.password)
			}
		})
	}
}
