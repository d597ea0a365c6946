package lostloans

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
)

// Name is the saga's name: its lease, its checkpoint, its timers. Never rename it.
const Name = "lost-loans"

// Books is what the saga needs of the books (books.Service is one).
type Books interface {
	// LossDue says when the rules declare the book's current loan lost, on the book as of
	// version or later.
	LossDue(ctx context.Context, bookID string, version int64) (books.LossDue, bool, error)
	DeclareLost(ctx context.Context, bookID string, c books.DeclareLost, o aggregate.Origin) (aggregate.Result, error)
}

// Saga declares loans lost once they are overdue for their LostAfter open days.
type Saga struct {
	Books Books
}

// Processor is the saga as a processor to run.
func (s Saga) Processor() processor.Processor {
	return processor.Processor{Name: Name, Kind: processor.KindSaga, Handler: s, Types: []string{
		books.BookLent{}.EventType(), books.LoanRenewed{}.EventType(), books.DueDateMoved{}.EventType(),
		books.BookReturned{}.EventType(), books.LoanLost{}.EventType(), books.ClaimedReturned{}.EventType()}}
}

// actor is who the log says recorded what the saga did.
var actor = eventstore.Actor{Subject: Name, Role: "system"}

// loss is a timer's data: which loan, due when it was scheduled for.
type loss struct {
	BookID string    `json:"bookId"`
	LoanID string    `json:"loanId"`
	DueAt  time.Time `json:"dueAt"`
}

// timerKey is a loan's timer's key, "lost:dune/loan-1": ids only. A loan whose ids make a key
// longer than a timer's may be is named by a digest of them.
func timerKey(bookID, loanID string) string {
	key := "lost:" + bookID + "/" + loanID
	if len(key) <= processor.MaxTimerKeyLength {
		return key
	}
	sum := sha256.Sum256([]byte(bookID + "/" + loanID))
	return "lost:#" + hex.EncodeToString(sum[:16])
}

// Handle implements processor.Handler: a loan made, renewed or moved (a day closed) has its
// timer set from the book as it is now; a loan's end cancels it.
func (s Saga) Handle(ctx context.Context, e eventstore.Event) error {
	bookID, ok := books.BookID(e)
	if !ok {
		return nil
	}
	decoded, err := books.Decode(e)
	if err != nil {
		return processor.Unreadable(e, err)
	}
	switch ev := decoded.(type) {
	case books.BookLent:
		return s.schedule(ctx, bookID, ev.LoanID, e.Version)
	case books.LoanRenewed:
		return s.schedule(ctx, bookID, ev.LoanID, e.Version)
	case books.DueDateMoved:
		return s.schedule(ctx, bookID, ev.LoanID, e.Version)
	case books.BookReturned:
		return processor.Cancel(ctx, timerKey(bookID, ev.LoanID))
	case books.LoanLost:
		return processor.Cancel(ctx, timerKey(bookID, ev.LoanID))
	case books.ClaimedReturned:
		return processor.Cancel(ctx, timerKey(bookID, ev.LoanID))
	}
	return nil
}

// schedule sets the timer of loanID of bookID for when the rules declare it lost, as the book
// is at version or later; a loan that is no longer the book's current one, or that the rules
// never declare lost, has none.
func (s Saga) schedule(ctx context.Context, bookID, loanID string, version int64) error {
	due, ok, err := s.Books.LossDue(ctx, bookID, version)
	if err != nil {
		return err
	}
	key := timerKey(bookID, loanID)
	if !ok || due.LoanID != loanID {
		return processor.Cancel(ctx, key)
	}
	return processor.Schedule(ctx, key, due.At, loss{BookID: bookID, LoanID: loanID, DueAt: due.DueAt})
}

// Fire implements processor.TimerHandler: a loan's lost time has come.
func (s Saga) Fire(ctx context.Context, timer processor.Timer) error {
	var x loss
	if err := json.Unmarshal(timer.Data, &x); err != nil || x.BookID == "" || x.LoanID == "" {
		return nil // nothing could ever be done with it: forgotten (see processor's Timers)
	}
	due, ok, err := s.Books.LossDue(ctx, x.BookID, math.MaxInt64)
	switch {
	case err != nil:
		return err
	case !ok || due.LoanID != x.LoanID:
		return nil // the loan ended, and its end cancels the timer
	case due.At.After(timer.At):
		// Renewed, or a day closed, since the timer was set: it is lost later.
		return processor.Schedule(ctx, timer.Key, due.At, loss{BookID: x.BookID, LoanID: x.LoanID, DueAt: due.DueAt})
	}
	at := timer.At.UTC()
	origin := aggregate.Origin{CommandID: fmt.Sprintf("lost:%s@%s", x.LoanID, strconv.FormatInt(at.Unix(), 10)), Actor: actor}
	_, err = s.Books.DeclareLost(ctx, x.BookID, books.DeclareLost{LoanID: x.LoanID, At: &at}, origin)
	if errs.Is(err, errs.LoanNotCurrent) || errs.Is(err, errs.NotFound) {
		return nil // returned in the instant since it was read
	}
	return err
}
