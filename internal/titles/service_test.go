package titles_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/reservations"
	"library/internal/titles"
)

// replica is a titles service as one replica runs it: its own repositories and kept
// aggregates, on a log that replicas share.
func replica(store *eventstore.Memory) *titles.Service {
	clock := func() time.Time { return now }
	return titles.NewService(store, aggregate.Options{}, clock, reservations.NewService(store, aggregate.Options{}))
}

func addTitle(id string, isbn *string) titles.AddTitle {
	return titles.AddTitle{ID: id, Title: "Title " + id, Authors: []string{"An Author"}, ISBN: isbn}
}

// reservation is what the log holds of a value's reservation: its events' types and owners.
func reservation(t *testing.T, store *eventstore.Memory, isbn string) []string {
	t.Helper()
	events, err := store.ReadStream(context.Background(), reservations.StreamID(reservations.ISBN, isbn), 0)
	require.NoError(t, err)
	var got []string
	for _, e := range events {
		got = append(got, e.Type+" "+string(e.Data))
	}
	return got
}

// A title's ISBN is reserved in the append that adds the title; another title is refused it,
// and the refusal records nothing.
func TestAddReservesTheISBN(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	s := replica(store)

	res, err := s.Add(ctx, addTitle("dune", ptr("0-441-01359-7")), aggregate.Origin{})
	require.NoError(t, err)
	require.Equal(t, "title-dune", res.StreamID)
	require.Equal(t, []string{`ValueReserved {"owner":"title-dune"}`}, reservation(t, store, "9780441013593"))
	mine, err := store.ReadStream(ctx, "title-dune", 0)
	require.NoError(t, err)
	held, err := store.ReadStream(ctx, "reservation-isbn:9780441013593", 0)
	require.NoError(t, err)
	require.Equal(t, mine[0].TransactionID, held[0].TransactionID, "one append")

	_, err = s.Add(ctx, addTitle("dune-again", ptr("9780441013593")), aggregate.Origin{})
	require.True(t, errs.Is(err, errs.TitleAlreadyExists), "%v", err)
	require.ErrorContains(t, err, "title-dune")
	_, _, err = s.Get(ctx, "dune-again")
	require.True(t, errs.Is(err, errs.NotFound), "%v", err)
	require.Len(t, reservation(t, store, "9780441013593"), 1)

	_, err = s.Add(ctx, addTitle("dune", nil), aggregate.Origin{})
	require.True(t, errs.Is(err, errs.TitleAlreadyExists), "an id is added once: %v", err)
	_, err = s.Add(ctx, addTitle("emma", nil), aggregate.Origin{})
	require.NoError(t, err, "a title without an ISBN reserves nothing")
}

// Changing a title's ISBN reserves the new one and releases the old one in one append, after
// which another title may take the old one; removing it releases it; a change that keeps it
// touches no reservation.
func TestChangeMovesTheReservation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	s := replica(store)
	const old, next = "9780441013593", "9780593099322"
	_, err := s.Add(ctx, addTitle("dune", ptr(old)), aggregate.Origin{})
	require.NoError(t, err)

	res, err := s.Change(ctx, "dune", titles.ChangeTitle{ISBN: ptr("978-0-593-09932-2")}, aggregate.Origin{})
	require.NoError(t, err)
	require.Len(t, res.Events, 1)
	require.Equal(t, titles.TitleChanged{ISBN: next}, res.Events[0].Data)
	require.Equal(t, []string{`ValueReserved {"owner":"title-dune"}`, `ValueReleased {"owner":"title-dune"}`}, reservation(t, store, old))
	require.Equal(t, []string{`ValueReserved {"owner":"title-dune"}`}, reservation(t, store, next))

	_, err = s.Add(ctx, addTitle("dune-ace", ptr(old)), aggregate.Origin{})
	require.NoError(t, err, "the old ISBN is free for another title")
	_, err = s.Change(ctx, "dune", titles.ChangeTitle{ISBN: ptr(old)}, aggregate.Origin{})
	require.True(t, errs.Is(err, errs.TitleAlreadyExists), "and taken by it now: %v", err)

	res, err = s.Change(ctx, "dune", titles.ChangeTitle{Title: ptr("Title dune"), ISBN: ptr(next)}, aggregate.Origin{})
	require.NoError(t, err)
	require.Empty(t, res.Events, "nothing changed")
	res, err = s.Change(ctx, "dune", titles.ChangeTitle{Title: ptr("Dune (deluxe)")}, aggregate.Origin{})
	require.NoError(t, err)
	require.Len(t, res.Events, 1)
	require.Len(t, reservation(t, store, next), 1, "a change that keeps the ISBN touches no reservation")

	_, err = s.Change(ctx, "dune", titles.ChangeTitle{Remove: []string{"isbn"}}, aggregate.Origin{})
	require.NoError(t, err)
	require.Equal(t, []string{`ValueReserved {"owner":"title-dune"}`, `ValueReleased {"owner":"title-dune"}`}, reservation(t, store, next))
	got, _, err := s.Get(ctx, "dune")
	require.NoError(t, err)
	require.Empty(t, got.ISBN)
	_, err = s.Add(ctx, addTitle("dune-deluxe", ptr(next)), aggregate.Origin{})
	require.NoError(t, err, "a removed ISBN is free for another title")
}

// Many titles added at once with one ISBN, through two replicas on one log: exactly one is
// added, every other is refused TitleAlreadyExists, and the ISBN is reserved once.
func TestConcurrentAddsWithOneISBN(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	replicas := []*titles.Service{replica(store), replica(store)}
	const n = 50
	outcomes := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, outcomes[i] = replicas[i%2].Add(ctx, addTitle(fmt.Sprintf("t%d", i), ptr("9780441013593")), aggregate.Origin{})
		})
	}
	wg.Wait()
	added := 0
	for _, err := range outcomes {
		if err == nil {
			added++
			continue
		}
		require.True(t, errs.Is(err, errs.TitleAlreadyExists), "%v", err)
	}
	require.Equal(t, 1, added)
	require.Len(t, reservation(t, store, "9780441013593"), 1)
}

// A command repeated under its Idempotency-Key is answered from the title's stream, and
// writes no reservation again.
func TestRepeatedAddIsReplayed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	s := replica(store)
	o := aggregate.Origin{CommandID: "add-dune"}
	id := titles.IDFor("issuer", "libby", o.CommandID)
	first, err := s.Add(ctx, titles.AddTitle{ID: id, Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: ptr("0441013597")}, o)
	require.NoError(t, err)
	again, err := s.Add(ctx, titles.AddTitle{ID: id, Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: ptr("978-0-441-01359-3")}, o)
	require.NoError(t, err)
	require.True(t, again.Replayed, "one ISBN written two ways is one payload")
	require.Equal(t, first.Events, again.Events)
	require.Len(t, reservation(t, store, "9780441013593"), 1)
	require.Equal(t, id, titles.IDFor("issuer", "libby", o.CommandID))
	require.NotEqual(t, id, titles.IDFor("issuer", "other", o.CommandID), "another caller's key is another title")
}

// A snapshot of a title reads back as the same title.
func TestSnapshotRoundTrip(t *testing.T) {
	t.Parallel()
	codec := titles.Type().Snapshot
	copies := fold(dune, titles.CopyAdded{BookID: "dune-1", Barcode: "A1"}, titles.CopyAdded{BookID: "dune-2"})
	for _, title := range []titles.Title{fold(dune), fold(titles.TitleAdded{ID: "emma", Title: "Emma", Authors: []string{"Jane Austen"}}), copies, {}} {
		b, err := codec.Encode(title)
		require.NoError(t, err)
		back, err := codec.Decode(b)
		require.NoError(t, err)
		require.Equal(t, title, back)
	}
}
