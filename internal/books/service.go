package books

import (
	"context"
	"math"
	"time"

	"library/internal/aggregate"
	"library/internal/errs"
)

// Type is the Book aggregate type. Its name prefixes stream ids ("book-<id>"): never rename it.
func Type() aggregate.Type[Book] {
	return aggregate.Type[Book]{
		Name:     "book",
		New:      NewBook,
		Apply:    Apply,
		Clone:    Clone,
		Weigh:    weigh,
		Snapshot: snapshotCodec(),
		Events: []aggregate.Codec{
			aggregate.EventCodec[BookAdded](),
			aggregate.EventCodec[BookLent](),
			aggregate.EventCodec[BookReturned](),
		},
	}
}

// Service runs Book commands and reads books.
type Service struct {
	repo       *aggregate.Repository[Book]
	now        func() time.Time
	loanPeriod time.Duration
}

// NewService returns a Service on log. now is the clock; loanPeriod is the default loan length.
func NewService(log aggregate.Log, opts aggregate.Options, now func() time.Time, loanPeriod time.Duration) *Service {
	return &Service{repo: aggregate.NewRepository(log, Type(), opts), now: now, loanPeriod: loanPeriod}
}

// Add adds a book to the catalogue.
func (s *Service) Add(ctx context.Context, c AddBook, o aggregate.Origin) (aggregate.Result, error) {
	return s.repo.Execute(ctx, c.ID, aggregate.Command[Book]{
		Name: "addBook", Origin: o, Payload: c, Validate: c.Validate,
		Decide: func(b Book) ([]Event, error) { return c.Decide(b) },
	})
}

// Lend lends a book.
func (s *Service) Lend(ctx context.Context, bookID string, c LendBook, o aggregate.Origin) (aggregate.Result, error) {
	return s.repo.Execute(ctx, bookID, aggregate.Command[Book]{
		Name: "lendBook", Origin: o, Payload: c, Validate: c.Validate,
		Decide: func(b Book) ([]Event, error) { return c.Decide(b, s.now(), s.loanPeriod) },
	})
}

// Return ends a loan.
func (s *Service) Return(ctx context.Context, bookID string, c ReturnBook, o aggregate.Origin) (aggregate.Result, error) {
	return s.repo.Execute(ctx, bookID, aggregate.Command[Book]{
		Name: "returnBook", Origin: o, Payload: c, Validate: c.Validate,
		Decide: func(b Book) ([]Event, error) { return c.Decide(b, s.now()) },
	})
}

// Get returns a book and its stream version, or errs.NotFound.
func (s *Service) Get(ctx context.Context, bookID string) (Book, int64, error) {
	return s.GetAtLeast(ctx, bookID, math.MaxInt64)
}

// GetAtLeast is Get for a reader of the log that has seen the book's event at version: the book
// it returns is no older than that event, and may be newer, but not necessarily current. A book
// kept in memory that is recent enough is returned without reading the log.
func (s *Service) GetAtLeast(ctx context.Context, bookID string, version int64) (Book, int64, error) {
	loaded, err := s.repo.LoadAtLeast(ctx, bookID, version)
	if err != nil {
		return Book{}, 0, err
	}
	if !loaded.State.Added {
		return Book{}, 0, errs.E(errs.NotFound, "there is no book %s", bookID)
	}
	return loaded.State, loaded.Version, nil
}
