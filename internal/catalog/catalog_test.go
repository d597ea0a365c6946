package catalog_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/books"
	"library/internal/catalog"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/memdriver"
	"library/internal/testkit/drivertest"
)

// The fixed clock and the events of these tests, as the books package's decision tests have
// them.
var (
	nowUTC     = time.Date(2026, 3, 10, 14, 30, 15, 0, time.UTC)
	loanPeriod = 14 * 24 * time.Hour

	added = books.BookAdded{ID: "b1", Title: "Dune", Author: "Frank Herbert"}
	// returnedL1 ends the loan l1.
	returnedL1 = books.BookReturned{LoanID: "l1", MemberID: "m1", ReturnedAt: nowUTC.Add(-time.Hour), DaysLate: 9}
)

// recorded is an event as the log returns it, at the given position.
func recorded(t *testing.T, stream string, version, position int64, e books.Event) eventstore.Event {
	t.Helper()
	data, err := json.Marshal(e)
	require.NoError(t, err)
	return eventstore.Event{StreamID: stream, Version: version, Position: position, TransactionID: uint64(position),
		Type: e.EventType(), Data: data}
}

func at(position int64, generation int64) processor.Position {
	return processor.Position{Generation: generation, Checkpoint: eventstore.Checkpoint{TransactionID: uint64(position), Position: position}}
}

// The catalog in memory: what each book event does, other streams ignored, the checkpoint
// moved with the rows, a stale batch fenced, and a rebuild that answers only once it has read as
// far as the build it replaces.
func TestMemoryCatalog(t *testing.T) {
	ctx := context.Background()
	checkpoints := memdriver.NewCheckpoints(nil)
	memory := answering(t, catalog.NewMemory(checkpoints), checkpoints)
	due := nowUTC.Add(loanPeriod)
	batch := []eventstore.Event{
		recorded(t, "book-b1", 1, 1, added),
		recorded(t, "account-m1", 1, 2, books.BookAdded{ID: "not a book"}), // another stream
		recorded(t, "book-b2", 1, 3, books.BookAdded{ID: "b2", Title: "Emma", Author: "Jane Austen"}),
		recorded(t, "book-b1", 2, 4, books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: nowUTC, DueAt: due}),
		{StreamID: "book-b2", Version: 2, Position: 5, TransactionID: 5, Type: "NothingChanged", Data: json.RawMessage(`{}`)},
	}
	require.NoError(t, memory.Apply(ctx, processor.Position{}, at(5, 0), batch))

	list, pos, err := memory.List(ctx, catalog.Filter{})
	require.NoError(t, err)
	require.Equal(t, at(5, 0), pos)
	require.Equal(t, []catalog.Book{
		{ID: "b1", Title: "Dune", Author: "Frank Herbert", Status: "lent", Version: 2,
			Loan: &books.Loan{LoanID: "l1", MemberID: "m1", LentAt: nowUTC, DueAt: due}},
		{ID: "b2", Title: "Emma", Author: "Jane Austen", Status: "available", Version: 2},
	}, list.Books)
	require.False(t, list.More)
	stored, err := checkpoints.Load(ctx, catalog.Name)
	require.NoError(t, err)
	require.Equal(t, at(5, 0), stored, "rows and checkpoint move together")

	// A holder that read the start of the log is too late: nothing of its batch is applied.
	err = memory.Apply(ctx, processor.Position{}, at(6, 0), []eventstore.Event{recorded(t, "book-b1", 3, 6, returnedL1)})
	require.ErrorIs(t, err, processor.ErrFenced)
	lent, _, err := memory.List(ctx, catalog.Filter{Status: "lent"})
	require.NoError(t, err)
	require.Len(t, lent.Books, 1)

	require.NoError(t, memory.Apply(ctx, at(5, 0), at(6, 0), []eventstore.Event{recorded(t, "book-b1", 3, 6, books.BookReturned{LoanID: "l1", MemberID: "m1", ReturnedAt: nowUTC.Add(time.Hour)})}))
	available, _, err := memory.List(ctx, catalog.Filter{Status: "available"})
	require.NoError(t, err)
	require.Len(t, available.Books, 2)

	rebuild, model := drivertest.Rebuild(t, checkpoints, catalog.Name, memory)
	require.NoError(t, model.Apply(ctx, processor.Position{}, at(5, 0), batch))
	after, err := checkpoints.TakeOver(ctx, rebuild)
	require.NoError(t, err)
	require.Equal(t, processor.BuildBuilding, after.State, "behind the build that answers")
	list, pos, err = memory.List(ctx, catalog.Filter{})
	require.NoError(t, err)
	require.Equal(t, at(6, 0), pos, "the first build answers meanwhile")
	require.Len(t, list.Books, 2)

	require.NoError(t, model.Apply(ctx, at(5, 0), at(6, 0), []eventstore.Event{recorded(t, "book-b1", 3, 6, returnedL1)}))
	after, err = checkpoints.TakeOver(ctx, rebuild)
	require.NoError(t, err)
	require.Equal(t, processor.BuildAnswering, after.State)
	available, pos, err = memory.List(ctx, catalog.Filter{Status: "available"})
	require.NoError(t, err)
	require.Equal(t, at(6, 0), pos)
	require.Equal(t, []string{"b1", "b2"}, []string{available.Books[0].ID, available.Books[1].ID}, "the rebuild answers, as far on")
}

// A batch with an event that can't be read is refused whole, and nothing moves; so is one with
// an event written by a newer release than this one, with an error to try again: the view waits
// for a replica of that release to read it, and never skips it.
func TestCatalogRefusesUnreadableEvents(t *testing.T) {
	ctx := context.Background()
	checkpoints := memdriver.NewCheckpoints(nil)
	memory := answering(t, catalog.NewMemory(checkpoints), checkpoints)
	bad := eventstore.Event{StreamID: "book-b1", Version: 1, Position: 1, TransactionID: 1, Type: "BookAdded", Data: json.RawMessage(`{"title":7}`)}
	require.Error(t, memory.Apply(ctx, processor.Position{}, at(1, 0), []eventstore.Event{bad}))
	newer := eventstore.Event{StreamID: "book-b1", Version: 1, Position: 1, TransactionID: 1, Type: "BookAdded",
		Data: json.RawMessage(`{"title":"Dune","author":"Herbert"}`), Metadata: eventstore.Metadata{Schema: 3}}
	err := memory.Apply(ctx, processor.Position{}, at(1, 0), []eventstore.Event{newer})
	require.True(t, errs.Is(err, errs.Unavailable), "%v", err)
	_, pos, err := memory.List(ctx, catalog.Filter{})
	require.NoError(t, err)
	require.Equal(t, processor.Position{}, pos)
}
