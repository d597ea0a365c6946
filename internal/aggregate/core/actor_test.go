package core

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/eventstore"
)

// addAs is add run by a person.
func addAs(n int, key, subject string) Command[tally] {
	c := add(n, key)
	c.Origin.Actor = eventstore.Actor{Subject: subject, Role: "member", Issuer: "https://idp.test"}
	return c
}

// A key answers only the person who first used it: the same key and payload from someone
// else, on the same stream, is refused, never given the first person's answer. The log
// records who ran each command. The first person's retry, in another role, is still theirs.
func TestAKeyAnswersOnlyItsOwner(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, store := newTallies(t, Options{})
	first, err := repo.Execute(ctx, "a", addAs(5, "k", "alice"))
	require.NoError(t, err)

	_, err = repo.Execute(ctx, "a", addAs(5, "k", "bob"))
	require.True(t, errs.Is(err, errs.IdempotencyKeyReused), "another person: %v", err)
	require.Contains(t, err.Error(), "someone else")

	retry := addAs(5, "k", "alice")
	retry.Origin.Actor.Role = "librarian"
	again, err := repo.Execute(ctx, "a", retry)
	require.NoError(t, err)
	require.True(t, again.Replayed)
	require.Equal(t, mustJSON(t, first), mustJSON(t, again))

	stored, err := store.ReadStream(ctx, "tally-a", 0)
	require.NoError(t, err)
	require.Len(t, stored, 1)
	require.Equal(t, eventstore.Actor{Subject: "alice", Role: "member", Issuer: "https://idp.test"}, stored[0].Metadata.Actor)

	// The same across replicas: a second repository on the log, with nothing kept.
	other := NewRepository(store, tallyType(), Options{})
	_, err = other.Execute(ctx, "a", addAs(5, "k", "bob"))
	require.True(t, errs.Is(err, errs.IdempotencyKeyReused), "another person, on another replica: %v", err)
}

// Two people's commands with one key in one group: the second is refused.
func TestAKeyTwiceInOneGroupFromTwoPeople(t *testing.T) {
	t.Parallel()
	log := newGatedLog()
	repo := NewRepository(log, tallyType(), Options{})
	_, outs := grouped(t, repo, log, nil, add(1, "first"), addAs(5, "pay", "alice"), addAs(5, "pay", "bob"))
	require.NoError(t, outs[0].err)
	require.True(t, errs.Is(outs[1].err, errs.IdempotencyKeyReused), "bob's: %v", outs[1].err)
	loaded, err := repo.Load(context.Background(), "x")
	require.NoError(t, err)
	require.Equal(t, 6, loaded.State.total, "1 and alice's 5")
}

// A person is their subject at their provider: the same subject from another issuer is
// someone else, and a key first used by one is refused to the other.
func TestAKeyAnswersNoOneElseOfTheSameSubject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo, _ := newTallies(t, Options{})
	_, err := repo.Execute(ctx, "a", addAs(5, "k", "alice"))
	require.NoError(t, err)
	elsewhere := addAs(5, "k", "alice")
	elsewhere.Origin.Actor.Issuer = "https://other-idp.test"
	_, err = repo.Execute(ctx, "a", elsewhere)
	require.True(t, errs.Is(err, errs.IdempotencyKeyReused), "alice of another provider: %v", err)
}
