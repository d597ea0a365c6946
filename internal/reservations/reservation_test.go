package reservations_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/reservations"
)

func fold(given ...reservations.Event) reservations.Reservation {
	var r reservations.Reservation
	for _, e := range given {
		r = reservations.Apply(r, e)
	}
	return r
}

var (
	byDune   = reservations.ValueReserved{Owner: "title-dune"}
	freedBy  = reservations.ValueReleased{Owner: "title-dune"}
	byOther  = reservations.ValueReserved{Owner: "title-other"}
	reserve  = reservations.Reserve{Kind: reservations.ISBN, Value: "9780441013593", Owner: "title-dune"}
	released = reservations.Release{Owner: "title-dune"}
)

func TestReserve(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		given []reservations.Event
		then  []reservations.Event
		err   errs.Code
	}{
		{name: "a value never reserved", then: []reservations.Event{byDune}},
		{name: "held by the owner already: nothing", given: []reservations.Event{byDune}},
		{name: "held by another owner", given: []reservations.Event{byOther}, err: errs.TitleAlreadyExists},
		{name: "released by its owner", given: []reservations.Event{byOther, reservations.ValueReleased{Owner: "title-other"}},
			then: []reservations.Event{byDune}},
		{name: "released, then taken again", given: []reservations.Event{byDune, freedBy, byOther}, err: errs.TitleAlreadyExists},
	} {
		got, err := reserve.Decide(fold(c.given...))
		if c.err != "" {
			require.True(t, errs.Is(err, c.err), "%s: %v", c.name, err)
			require.ErrorContains(t, err, "title-other", "%s: the detail names the holder", c.name)
			continue
		}
		require.NoError(t, err, c.name)
		require.Equal(t, c.then, got, c.name)
	}
}

func TestRelease(t *testing.T) {
	t.Parallel()
	require.Equal(t, []reservations.Event{freedBy}, released.Decide(fold(byDune)))
	require.Empty(t, released.Decide(fold()), "a value never reserved")
	require.Empty(t, released.Decide(fold(byOther)), "another owner's value is not this owner's to give up")
	require.Empty(t, released.Decide(fold(byDune, freedBy)), "released already")
	require.Equal(t, reservations.Reservation{Owner: "title-other"}, fold(byOther, freedBy), "a release by another owner changes nothing")
}

// Move's parts: the old value released and the new one reserved, each at its stream's version,
// or nothing when there is nothing to move. Holder reads who holds a value.
func TestMove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	s := reservations.NewService(store, aggregate.Options{})
	const dune, other = "9780441013593", "9780593099322"
	_, err := store.Append(ctx, reservations.StreamID(reservations.ISBN, dune), 0,
		[]eventstore.NewEvent{{Type: "ValueReserved", Data: []byte(`{"owner":"title-dune"}`)}})
	require.NoError(t, err)

	part, err := s.Move(ctx, reservations.ISBN, "title-dune", dune, other)
	require.NoError(t, err)
	require.Equal(t, aggregate.Also{StreamID: "reservation-isbn:" + dune, ExpectedVersion: 1, Events: []aggregate.Event{freedBy}, Codecs: reservations.Type().Events,
		More: []aggregate.Also{{StreamID: "reservation-isbn:" + other, ExpectedVersion: 0, Events: []aggregate.Event{byDune}, Codecs: reservations.Type().Events}}}, part)

	part, err = s.Move(ctx, reservations.ISBN, "title-dune", "", dune)
	require.NoError(t, err)
	require.Empty(t, part.Events, "held already")
	require.Empty(t, part.More)

	part, err = s.Move(ctx, reservations.ISBN, "title-dune", dune, dune)
	require.NoError(t, err)
	require.Equal(t, aggregate.Also{}, part, "the same value both ways")

	_, err = s.Move(ctx, reservations.ISBN, "title-other", other, dune)
	require.True(t, errs.Is(err, errs.TitleAlreadyExists), "%v", err)

	_, err = s.Move(ctx, reservations.ISBN, "title-dune", "", "not a value")
	require.True(t, errs.Is(err, errs.InvalidRequest), "%v", err)

	holder, err := s.Holder(ctx, reservations.ISBN, dune)
	require.NoError(t, err)
	require.Equal(t, "title-dune", holder)
	holder, err = s.Holder(ctx, reservations.ISBN, other)
	require.NoError(t, err)
	require.Empty(t, holder)
}

func TestSnapshotRoundTrip(t *testing.T) {
	t.Parallel()
	codec := reservations.Type().Snapshot
	for _, r := range []reservations.Reservation{{}, {Owner: "title-dune"}} {
		b, err := codec.Encode(r)
		require.NoError(t, err)
		back, err := codec.Decode(b)
		require.NoError(t, err)
		require.Equal(t, r, back)
	}
}

// Each kind refuses a value another owner holds with its own code, and names the value by its
// kind: a barcode a copy holds is BarcodeTaken for another copy.
func TestEachKindHasItsRefusal(t *testing.T) {
	t.Parallel()
	held := fold(reservations.ValueReserved{Owner: "book-dune-1"})
	_, err := reservations.Reserve{Kind: reservations.Barcode, Value: "31234000123456", Owner: "book-dune-2"}.Decide(held)
	require.True(t, errs.Is(err, errs.BarcodeTaken), "%v", err)
	require.ErrorContains(t, err, "barcode 31234000123456 is already recorded for book-dune-1")
	_, err = reservations.Reserve{Kind: reservations.Card, Value: "LIB-0042", Owner: "account-bob"}.Decide(
		fold(reservations.ValueReserved{Owner: "account-alice"}))
	require.True(t, errs.Is(err, errs.CardTaken), "%v", err)
	require.ErrorContains(t, err, "card number LIB-0042 is already recorded for account-alice")
	_, err = reservations.Reserve{Kind: reservations.ISBN, Value: "9780441013593", Owner: "title-other"}.Decide(held)
	require.True(t, errs.Is(err, errs.TitleAlreadyExists), "%v", err)
	require.Equal(t, "reservation-barcode:31234000123456", reservations.StreamID(reservations.Barcode, "31234000123456"))
}
