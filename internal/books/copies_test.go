package books_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
)

// A copy of a title is added once, with its title's title and authors and its barcode.
func TestAddCopy(t *testing.T) {
	t.Parallel()
	addCopy := func(c books.AddCopy) func(books.Book) ([]books.Event, error) {
		return func(b books.Book) ([]books.Event, error) {
			c, err := c.Checked()
			if err != nil {
				return nil, err
			}
			return c.Decide(b, "Dune", books.AuthorOf([]string{"Frank Herbert", "Brian Herbert"}))
		}
	}
	ok := books.AddCopy{ID: "dune-1", TitleID: "dune", Barcode: "lib-0042"}
	run(t, []decideCase{
		{name: "added once, the barcode in capitals", when: addCopy(ok), then: []books.Event{books.BookAdded{ID: "dune-1", TitleID: "dune",
			Barcode: "LIB-0042", Title: "Dune", Author: "Frank Herbert, Brian Herbert"}}},
		{name: "added twice", given: []books.Event{added}, when: addCopy(ok), err: errs.BookAlreadyExists},
		{name: "no barcode", when: addCopy(books.AddCopy{ID: "dune-1", TitleID: "dune"}), err: errs.InvalidRequest},
		{name: "a bad barcode", when: addCopy(books.AddCopy{ID: "dune-1", TitleID: "dune", Barcode: "12 34"}), err: errs.InvalidRequest},
		{name: "a bad title id", when: addCopy(books.AddCopy{ID: "dune-1", TitleID: "du ne", Barcode: "1"}), err: errs.InvalidRequest},
	})
}

// A book added on its own may bring an ISBN, kept as 13 digits, and a barcode, kept in capitals.
func TestAddBookWithISBNAndBarcode(t *testing.T) {
	t.Parallel()
	c, err := books.AddBook{ID: "b1", Title: "Dune", Author: "Frank Herbert", ISBN: "0-441-01359-7", Barcode: "lib-1"}.Checked()
	require.NoError(t, err)
	require.Equal(t, "9780441013593", c.ISBN)
	require.Equal(t, "LIB-1", c.Barcode)
	c.TitleID = "dune"
	got, err := c.Decide(books.NewBook())
	require.NoError(t, err)
	require.Equal(t, []books.Event{books.BookAdded{ID: "b1", TitleID: "dune", Barcode: "LIB-1", Title: "Dune", Author: "Frank Herbert"}}, got)
	for _, bad := range []books.AddBook{
		{ID: "b1", Title: "Dune", Author: "Frank Herbert", ISBN: "0-441-01359-8"},
		{ID: "b1", Title: "Dune", Author: "Frank Herbert", Barcode: "-1"},
	} {
		require.True(t, errs.Is(bad.Validate(), errs.InvalidRequest), "%+v", bad)
	}
}

// shelf is a Titles that lists copies on title streams of its own kind, in the log, as package
// titles does: a title is "added" when given, and the ISBN 9780441013593 is dune's.
type shelf struct {
	log   *eventstore.Memory
	mu    sync.Mutex
	added map[string]bool
}

// shelved is the event shelf writes on a title's stream for each copy.
type shelved struct {
	BookID string `json:"bookId"`
}

func (shelved) EventType() string { return "Shelved" }

func (s *shelf) Record(_ context.Context, titleID string) (string, []string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.added[titleID] {
		return "", nil, errs.E(errs.NotFound, "there is no title %s", titleID)
	}
	return "Dune", []string{"Frank Herbert"}, nil
}

func (s *shelf) WithISBN(_ context.Context, isbn13 string) (string, error) {
	if isbn13 == "9780441013593" {
		return "dune", nil
	}
	return "", nil
}

func (s *shelf) Shelve(ctx context.Context, c books.Shelving) (aggregate.Also, error) {
	if _, _, err := s.Record(ctx, c.TitleID); err != nil && c.Record == nil {
		return aggregate.Also{}, err
	}
	events, err := s.log.ReadStream(ctx, "shelf-"+c.TitleID, 0)
	if err != nil {
		return aggregate.Also{}, err
	}
	return aggregate.Also{StreamID: "shelf-" + c.TitleID, ExpectedVersion: int64(len(events)), Events: []aggregate.Event{shelved{BookID: c.BookID}},
		Codecs: []aggregate.Codec{aggregate.EventCodec[shelved]()}}, nil
}

// ReadQueue: nobody waits for a title of the shelf's.
func (s *shelf) ReadQueue(context.Context, string) (books.Queue, int64, error) {
	return nobody{}, 0, nil
}

// Moved: the shelf records no moves.
func (s *shelf) Moved(context.Context, string, int64, string, []books.Event) (aggregate.Also, error) {
	return aggregate.Also{}, nil
}

func (s *shelf) HoldCopy(context.Context, string, string, string, aggregate.Origin) (aggregate.Result, error) {
	return aggregate.Result{}, errs.E(errs.Internal, "the shelf takes no holds")
}

func (s *shelf) LeaveQueue(context.Context, string, string, aggregate.Origin) (aggregate.Result, error) {
	return aggregate.Result{}, errs.E(errs.Internal, "the shelf takes no holds")
}

func (s *shelf) Adopting(context.Context, string, int64, books.Adoption) (aggregate.Also, error) {
	return aggregate.Also{}, errs.E(errs.Internal, "the shelf adopts nothing")
}

// nobody is a queue with nobody in it.
type nobody struct{}

func (nobody) Next(string) string { return "" }

func (nobody) Waiting(string) int { return 0 }

func newCopies(t *testing.T) (*books.Service, *eventstore.Memory) {
	t.Helper()
	store := eventstore.NewMemory(nil)
	titles := &shelf{log: store, added: map[string]bool{"dune": true}}
	s := books.NewService(store, aggregate.Options{}, time.Now, books.Policy{LoanPeriod: loanPeriod}, nil).WithTitles(titles)
	return s, store
}

// streams is what the log holds of the given streams: each one's event types, and whether they
// were all written by one append.
func streams(t *testing.T, store *eventstore.Memory, ids ...string) (map[string][]string, bool) {
	t.Helper()
	got, transactions := map[string][]string{}, map[uint64]bool{}
	for _, id := range ids {
		events, err := store.ReadStream(context.Background(), id, 0)
		require.NoError(t, err)
		for _, e := range events {
			got[id] = append(got[id], e.Type)
			transactions[e.TransactionID] = true
		}
	}
	return got, len(transactions) == 1
}

// A copy is written in one append with its title's part and its barcode's reservation; another
// copy with its barcode is refused and writes nothing; the barcode finds the copy.
func TestAddCopyIsOneAppend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, store := newCopies(t)

	res, err := s.AddCopy(ctx, books.AddCopy{ID: "dune-1", TitleID: "dune", Barcode: "lib-0042"}, aggregate.Origin{})
	require.NoError(t, err)
	require.Equal(t, "book-dune-1", res.StreamID)
	got, oneAppend := streams(t, store, "book-dune-1", "shelf-dune", "reservation-barcode:LIB-0042")
	require.Equal(t, map[string][]string{"book-dune-1": {"BookAdded"}, "shelf-dune": {"Shelved"}, "reservation-barcode:LIB-0042": {"ValueReserved"}}, got)
	require.True(t, oneAppend)

	_, err = s.AddCopy(ctx, books.AddCopy{ID: "dune-2", TitleID: "dune", Barcode: "LIB-0042"}, aggregate.Origin{})
	require.True(t, errs.Is(err, errs.BarcodeTaken), "%v", err)
	require.ErrorContains(t, err, "book-dune-1", "the detail names the copy that has it")
	got, _ = streams(t, store, "book-dune-2", "shelf-dune")
	require.Equal(t, map[string][]string{"shelf-dune": {"Shelved"}}, got, "a refused copy writes nothing")

	_, err = s.AddCopy(ctx, books.AddCopy{ID: "emma-1", TitleID: "emma", Barcode: "E1"}, aggregate.Origin{})
	require.True(t, errs.Is(err, errs.NotFound), "a title never added: %v", err)
	_, err = s.AddCopy(ctx, books.AddCopy{ID: "dune-1", TitleID: "dune", Barcode: "LIB-0043"}, aggregate.Origin{})
	require.True(t, errs.Is(err, errs.BookAlreadyExists), "%v", err)

	book, version, err := s.FindByBarcode(ctx, "lib-0042")
	require.NoError(t, err)
	require.Equal(t, "dune-1", book.ID)
	require.Equal(t, "LIB-0042", book.Barcode)
	require.EqualValues(t, 1, version)
	_, _, err = s.FindByBarcode(ctx, "LIB-0043")
	require.True(t, errs.Is(err, errs.NotFound), "%v", err)
	_, _, err = s.FindByBarcode(ctx, "LIB 0043")
	require.True(t, errs.Is(err, errs.InvalidRequest), "%v", err)
}

// A book added on its own joins the title that holds its ISBN, or the title its title and
// author make; without titles, it is added alone.
func TestAddBookJoinsItsTitle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, store := newCopies(t)
	added := func(s *books.Service, c books.AddBook) books.BookAdded {
		t.Helper()
		res, err := s.Add(ctx, c, aggregate.Origin{})
		require.NoError(t, err)
		return res.Events[0].Data.(books.BookAdded)
	}
	require.Equal(t, "dune", added(s, books.AddBook{ID: "b1", Title: "Dune", Author: "Frank Herbert", ISBN: "0441013597"}).TitleID)
	require.Equal(t, "isbn-9780593099322", added(s, books.AddBook{ID: "b2", Title: "Dune", Author: "Frank Herbert", ISBN: "978-0-593-09932-2"}).TitleID)
	require.Equal(t, books.TitleIDOf("Dune", "Frank Herbert"), added(s, books.AddBook{ID: "b3", Title: "DUNE", Author: "frank herbert", Barcode: "b3"}).TitleID)
	got, _ := streams(t, store, "shelf-dune", "shelf-isbn-9780593099322", "shelf-"+books.TitleIDOf("Dune", "Frank Herbert"), "reservation-barcode:B3")
	require.Len(t, got, 4, "each on its title, the barcode reserved: %v", got)

	alone := books.NewService(store, aggregate.Options{}, time.Now, books.Policy{LoanPeriod: loanPeriod}, nil)
	require.Equal(t, books.TitleIDOf("Emma", "Jane Austen"), added(alone, books.AddBook{ID: "b4", Title: "Emma", Author: "Jane Austen"}).TitleID)
	_, err := alone.AddCopy(ctx, books.AddCopy{ID: "b5", TitleID: "dune", Barcode: "B5"}, aggregate.Origin{})
	require.True(t, errs.Is(err, errs.Internal), "copies of titles want titles: %v", err)
}
