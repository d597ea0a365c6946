package adoption_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/adoption"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/reservations"
	"library/internal/shelves"
	"library/internal/titles"
)

// world is a log and the titles on it, and the saga that adopts its books.
type world struct {
	log    *eventstore.Memory
	titles *titles.Service
	books  *books.Service
	saga   adoption.Saga
}

func newWorld() *world {
	log := eventstore.NewMemory(nil)
	s := titles.NewService(log, aggregate.Options{}, time.Now, reservations.NewService(log, aggregate.Options{})).
		WithHolds(titles.HoldPolicy{MaxQueue: 20}, nil)
	b := books.NewService(log, aggregate.Options{}, time.Now, books.Policy{LoanPeriod: time.Hour, Holds: books.HoldPolicy{MaxQueue: 20, Pickup: time.Hour}}, nil).
		WithTitles(shelves.Shelves{Titles: s})
	return &world{log: log, titles: s, books: b, saga: adoption.Saga{Books: b, Titles: s}}
}

// addedBefore writes a BookAdded as the release before titles wrote it: {id, title, author},
// with no schema version.
func (w *world) addedBefore(t *testing.T, id, title, author string) {
	t.Helper()
	data, err := json.Marshal(map[string]string{"id": id, "title": title, "author": author})
	require.NoError(t, err)
	_, err = w.log.Append(context.Background(), "book-"+id, 0, []eventstore.NewEvent{{Type: "BookAdded", Data: data}})
	require.NoError(t, err)
}

// run hands the saga every event of the log, in its order, as the engine would, and returns
// what it said of each one it refused.
func (w *world) run(t *testing.T) []error {
	t.Helper()
	events, err := w.log.ReadAll(context.Background(), eventstore.Checkpoint{}, 10_000)
	require.NoError(t, err)
	var refused []error
	for _, e := range events {
		if err := w.saga.Handle(context.Background(), e); err != nil {
			refused = append(refused, err)
		}
	}
	return refused
}

func (w *world) length(t *testing.T) int {
	t.Helper()
	events, err := w.log.ReadAll(context.Background(), eventstore.Checkpoint{}, 10_000)
	require.NoError(t, err)
	return len(events)
}

// Books added before titles become copies of the titles their titles and authors make, one
// title for the books alike, each listed once; running the saga again records nothing; a book
// added since titles is passed over; and a book whose title no title may have is parked.
func TestAdoptsTheBooksAddedBeforeTitles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld()
	w.addedBefore(t, "dune-1", "Dune", "Frank Herbert")
	w.addedBefore(t, "dune-2", "DUNE", "frank herbert")
	w.addedBefore(t, "emma", "Emma", "Jane Austen")
	w.addedBefore(t, "dune-3", "Dune.", "Frank  Herbert")
	require.Empty(t, w.run(t))

	dune, version, err := w.titles.Get(ctx, books.TitleIDOf("Dune", "Frank Herbert"))
	require.NoError(t, err)
	assert.Equal(t, "Dune", dune.Title, "the first book's title")
	assert.Equal(t, []string{"Frank Herbert"}, dune.Authors)
	assert.Equal(t, []titles.Copy{{BookID: "dune-1", State: titles.OnShelf}, {BookID: "dune-2", State: titles.OnShelf}, {BookID: "dune-3", State: titles.OnShelf}}, dune.Copies)
	assert.EqualValues(t, 4, version, "TitleAdded and three CopyAdded")
	book, _, err := w.books.Get(ctx, "dune-2")
	require.NoError(t, err)
	assert.True(t, book.OnTitle, "the book is adopted: CopyAdopted")
	emma, _, err := w.titles.Get(ctx, books.TitleIDOf("Emma", "Jane Austen"))
	require.NoError(t, err)
	assert.Equal(t, []titles.Copy{{BookID: "emma", State: titles.OnShelf}}, emma.Copies)

	written := w.length(t)
	require.Empty(t, w.run(t))
	assert.Equal(t, written, w.length(t), "a replay records nothing")

	added := books.BookAdded{ID: "dune-4", TitleID: "dune", Title: "Dune", Author: "Frank Herbert"}
	encoded, err := aggregate.Encode(books.Type().Events, []aggregate.Event{added}, eventstore.Metadata{})
	require.NoError(t, err)
	_, err = w.log.Append(ctx, "book-dune-4", 0, encoded)
	require.NoError(t, err)
	w.addedBefore(t, "bad", "Dune\nBcc: x", "Frank Herbert")
	refused := w.run(t)
	require.Len(t, refused, 1)
	var park *processor.ParkError
	require.True(t, errors.As(refused[0], &park), "%v", refused[0])
	assert.Equal(t, written+2, w.length(t), "a book added since titles is its title's already: nothing written for it")
}
