package titles_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/reservations"
	"library/internal/titles"
)

// A title lists each copy once, in the order they came; a title never added takes a copy only
// with its record, which it is added from first.
func TestShelveCopy(t *testing.T) {
	t.Parallel()
	copy1 := titles.CopyAdded{BookID: "dune-1", Barcode: "31234000000017"}
	record := &titles.AddTitle{ID: "dune", Title: "Dune", Authors: []string{"Frank Herbert"}}
	shelve := func(c titles.ShelveCopy) func(titles.Title) ([]titles.Event, error) { return c.Decide }
	run(t, []decideCase{
		{name: "a copy of a title", given: []titles.Event{dune}, when: shelve(titles.ShelveCopy{BookID: "dune-1", Barcode: "31234000000017"}),
			then: []titles.Event{copy1}},
		{name: "a copy without a barcode", given: []titles.Event{dune}, when: shelve(titles.ShelveCopy{BookID: "dune-2"}),
			then: []titles.Event{titles.CopyAdded{BookID: "dune-2"}}},
		{name: "a copy listed already: nothing", given: []titles.Event{dune, copy1}, when: shelve(titles.ShelveCopy{BookID: "dune-1"})},
		{name: "a title never added", when: shelve(titles.ShelveCopy{BookID: "dune-1"}), err: errs.NotFound},
		{name: "a title never added, with its record", when: shelve(titles.ShelveCopy{BookID: "dune-1", Record: record}),
			then: []titles.Event{titles.TitleAdded{ID: "dune", Title: "Dune", Authors: []string{"Frank Herbert"}}, titles.CopyAdded{BookID: "dune-1"}}},
		{name: "a record given for a title added: the copy alone", given: []titles.Event{dune},
			when: shelve(titles.ShelveCopy{BookID: "dune-3", Record: record}), then: []titles.Event{titles.CopyAdded{BookID: "dune-3"}}},
	})

	got := fold(dune, copy1, titles.CopyAdded{BookID: "dune-2"})
	require.Equal(t, []titles.Copy{{BookID: "dune-1", Barcode: "31234000000017", State: titles.OnShelf}, {BookID: "dune-2", State: titles.OnShelf}}, got.Copies)
	require.True(t, got.HasCopy("dune-2"))
	require.False(t, got.HasCopy("dune-3"))
	require.Len(t, fold(dune, copy1).Copies, 1, "a state's list is not changed by a later one")
}

// Shelve is the title's part of a copy's append, decided on the title as the log holds it: at
// its version, with the reservation of the ISBN of a title it adds.
func TestShelveIsTheTitlesPart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	s := replica(store)
	_, err := s.Add(ctx, addTitle("dune", nil), aggregate.Origin{})
	require.NoError(t, err)

	part, err := s.Shelve(ctx, "dune", titles.ShelveCopy{BookID: "dune-1", Barcode: "A1"})
	require.NoError(t, err)
	require.Equal(t, "title-dune", part.StreamID)
	require.EqualValues(t, 1, part.ExpectedVersion)
	require.Equal(t, []aggregate.Event{titles.CopyAdded{BookID: "dune-1", Barcode: "A1"}}, part.Events)

	_, err = s.Shelve(ctx, "emma", titles.ShelveCopy{BookID: "emma-1"})
	require.True(t, errs.Is(err, errs.NotFound), "%v", err)

	record := &titles.AddTitle{ID: "isbn-9780441013593", Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: ptr("0-441-01359-7")}
	part, err = s.Shelve(ctx, "isbn-9780441013593", titles.ShelveCopy{BookID: "dune-2", Record: record})
	require.NoError(t, err)
	require.EqualValues(t, 0, part.ExpectedVersion)
	require.Equal(t, []aggregate.Event{titles.TitleAdded{ID: "isbn-9780441013593", Title: "Dune", Authors: []string{"Frank Herbert"},
		ISBN: "9780441013593"}, titles.CopyAdded{BookID: "dune-2"}}, part.Events)
	require.Len(t, part.More, 1)
	require.Equal(t, reservations.StreamID(reservations.ISBN, "9780441013593"), part.More[0].StreamID, "the ISBN reserved with the title")

	bad := &titles.AddTitle{ID: "other", Title: "Dune", Authors: []string{"Frank Herbert"}}
	_, err = s.Shelve(ctx, "isbn-9780441013593", titles.ShelveCopy{BookID: "dune-2", Record: bad})
	require.True(t, errs.Is(err, errs.Internal), "a record is the title's own: %v", err)
	_, err = s.Shelve(ctx, "dune", titles.ShelveCopy{BookID: "not a book"})
	require.True(t, errs.Is(err, errs.InvalidRequest), "%v", err)
}

// A title adopts a book added before books were copies: its record when it has none, the copy
// and where it is, and the book's queue as holds ahead of any placed on the title since, a
// member waiting already keeping their one hold. A copy held before stays held, adopted: its
// pickup email went out long ago.
func TestAdoptCopy(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	placedNow := titles.TitleHoldPlaced{TitleID: "t_dune", MemberID: "zoe", PlacedAt: at}
	got, err := titles.AdoptCopy{BookID: "dune-1", Title: "Dune", Author: "Frank Herbert", LentTo: "ann", Waiting: []string{"ben", "zoe", "cid"}}.
		Decide(titles.Title{}, "t_dune", at)
	require.NoError(t, err)
	require.Equal(t, []titles.Event{
		titles.TitleAdded{ID: "t_dune", Title: "Dune", Authors: []string{"Frank Herbert"}},
		titles.CopyAdded{BookID: "dune-1"},
		titles.CopyLent{BookID: "dune-1", MemberID: "ann"},
		titles.TitleHoldPlaced{TitleID: "t_dune", MemberID: "ben", PlacedAt: at, Adopted: true},
		titles.TitleHoldPlaced{TitleID: "t_dune", MemberID: "zoe", PlacedAt: at, Adopted: true},
		titles.TitleHoldPlaced{TitleID: "t_dune", MemberID: "cid", PlacedAt: at, Adopted: true},
	}, got)

	title := fold(titles.TitleAdded{ID: "t_dune", Title: "Dune", Authors: []string{"Frank Herbert"}}, titles.CopyAdded{BookID: "dune-1"},
		titles.CopyLent{BookID: "dune-1", MemberID: "ann"}, placedNow)
	until := at.Add(time.Hour)
	got, err = titles.AdoptCopy{BookID: "dune-2", Title: "Dune", Author: "Frank Herbert", HeldFor: "dot", Until: until, Waiting: []string{"zoe", "eve"}}.
		Decide(title, "t_dune", at)
	require.NoError(t, err)
	require.Equal(t, []titles.Event{
		titles.CopyAdded{BookID: "dune-2"},
		titles.HoldTrapped{MemberID: "dot", BookID: "dune-2", Until: until, Adopted: true},
		titles.TitleHoldPlaced{TitleID: "t_dune", MemberID: "eve", PlacedAt: at, Adopted: true},
	}, got, "zoe waits already, and keeps her one hold")
	after := fold(append([]titles.Event{titles.TitleAdded{ID: "t_dune", Title: "Dune", Authors: []string{"Frank Herbert"}}, titles.CopyAdded{BookID: "dune-1"},
		titles.CopyLent{BookID: "dune-1", MemberID: "ann"}, placedNow}, got...)...)
	require.Equal(t, []string{"eve", "zoe"}, []string{after.Holds[0].MemberID, after.Holds[1].MemberID}, "a hold taken over goes ahead of those placed since")

	again, err := titles.AdoptCopy{BookID: "dune-2", Title: "Dune", Author: "Frank Herbert"}.Decide(after, "t_dune", at)
	require.NoError(t, err)
	require.Empty(t, again, "a copy the title lists already records nothing")
	_, err = titles.AdoptCopy{BookID: "b", Title: "Dune\nBcc: x", Author: "A"}.Decide(titles.Title{}, "t_bad", at)
	require.True(t, errs.Is(err, errs.InvalidRequest), "a record is checked as a title added is: %v", err)
}

// WithISBN names the title that holds an ISBN, and none for an ISBN no title holds.
func TestWithISBN(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	s := replica(store)
	_, err := s.Add(ctx, addTitle("dune", ptr("0-441-01359-7")), aggregate.Origin{})
	require.NoError(t, err)
	holder, err := s.WithISBN(ctx, "9780441013593")
	require.NoError(t, err)
	require.Equal(t, "dune", holder)
	holder, err = s.WithISBN(ctx, "9780593099322")
	require.NoError(t, err)
	require.Empty(t, holder)
}
