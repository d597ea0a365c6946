package holds

import (
	"context"
	"fmt"
	"time"

	"library/internal/accounts"
	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/titles"
)

// Name is the name of the holds view model, and of its first build (its lease, its
// checkpoint); its later builds are holds@2, holds@3... Never rename it.
const Name = "holds"

// Version is the version of the view's code. Bump it whenever the shape of holds and holds_books,
// or what the view writes there, changes: the next release then builds the view anew, beside
// the one that answers, which it replaces once it has caught up (package processor). Version 2
// follows a title's new name (TitleChanged) on its queue's holds.
const Version = 2

// ReadsFrom is the oldest version of the view whose tables this code's reads can read: keep it
// when a bump leaves the tables as the reads see them, raise it to Version otherwise.
const ReadsFrom = 1

// Versions are the view's: code, or Version when code is 0 (tests build other versions).
func Versions(code int) processor.Versions {
	if code == 0 {
		code = Version
	}
	return processor.Versions{Code: code, ReadsFrom: min(ReadsFrom, code)}
}

// A hold's status: waiting in the book's queue, or ready on the hold shelf.
const (
	Waiting = "waiting"
	Ready   = "ready"
)

// Hold is a hold that has not ended, as the view keeps it.
type Hold struct {
	BookID   string
	Title    string
	MemberID string
	// Seq orders the holds of one book: the version of its stream at the hold's HoldPlaced.
	Seq      int64
	PlacedAt time.Time
	// Until is when the book leaves the hold shelf unless picked up; zero while the member
	// waits.
	Until time.Time
	// Place is the member's place in the book's queue, from 1, as of the page's read; 0 for a
	// ready hold.
	Place int
}

// Status is Ready for a book on the hold shelf, Waiting otherwise.
func (h Hold) Status() string {
	if h.Until.IsZero() {
		return Waiting
	}
	return Ready
}

// View is the holds view model: every hold that has not ended, kept up to date from the log by
// the holder of the "holds" lease, and readable on every replica.
type View interface {
	processor.View
	// List returns the page of holds that filter chooses, in the filter's order, with their
	// places and the view's position, all as of one moment. The filter is one that
	// ParseFilter could make, or one of a member.
	List(ctx context.Context, filter Filter) (Page, processor.Position, error)
}

// Processor is the view as a processor to run.
func Processor(v View) processor.Processor {
	return processor.Processor{Name: Name, Kind: processor.KindViewModel, View: v, Types: []string{
		books.BookAdded{}.EventType(), books.HoldPlaced{}.EventType(), books.BookHeld{}.EventType(),
		books.HoldCancelled{}.EventType(), books.HoldExpired{}.EventType(), books.HoldFulfilled{}.EventType(),
		accounts.MemberErased{}.EventType(), books.CopyAdopted{}.EventType(),
		titles.TitleAdded{}.EventType(), titles.TitleChanged{}.EventType(), titles.TitleHoldPlaced{}.EventType(), titles.TitleHoldCancelled{}.EventType(),
		titles.HoldTrapped{}.EventType(), titles.CopyLent{}.EventType()},
		DataOnly: true}
}

// A Change is what one event does to the view: Titled, Renamed, Placed, Held, Ended or Erased.
type Change interface{ isChange() }

// Titled is a book that joined the catalogue under a title.
type Titled struct{ BookID, Title string }

// Renamed is a title's queue whose title changed its name: its holds stay as they are.
type Renamed struct{ BookID, Title string }

// Placed is a member who joined a book's queue, at the back.
type Placed struct{ Hold Hold }

// Held is a book on the hold shelf for a member who was waiting for it, until a time.
type Held struct {
	BookID, MemberID string
	Until            time.Time
}

// Ended is a member's hold on a book that ended (cancelled, expired or fulfilled).
type Ended struct{ BookID, MemberID string }

// Erased is a member forgotten: no hold of theirs stays in the view.
type Erased struct{ MemberID string }

func (Titled) isChange()  {}
func (Renamed) isChange() {}
func (Placed) isChange()  {}
func (Held) isChange()    {}
func (Ended) isChange()   {}
func (Erased) isChange()  {}

// Changes decodes what a batch does to the view: the events of book streams, as the Book
// aggregate decodes them, and members' erasures. Everything else is skipped.
func Changes(events []eventstore.Event) ([]Change, error) {
	erasure := accounts.MemberErased{}.EventType()
	var out []Change
	for _, e := range events {
		bookID, isBook := books.BookID(e)
		memberID, isAccount := accounts.MemberID(e)
		if titleID, isTitle := titles.TitleID(e); isTitle {
			changes, err := titleChanges(titleID, e)
			if err != nil {
				return nil, err
			}
			out = append(out, changes...)
			continue
		}
		switch {
		case isBook:
			event, err := books.Decode(e)
			if err != nil {
				return nil, fmt.Errorf("holds: event %s at position %d: %w", e.Type, e.Position, err)
			}
			if c := bookChange(bookID, e, event); c != nil {
				out = append(out, c)
			}
			if adopted, ok := event.(books.CopyAdopted); ok {
				for _, m := range adopted.Moved {
					out = append(out, Ended{BookID: bookID, MemberID: m}) // now waiting for the title
				}
			}
		case isAccount && e.Type == erasure:
			out = append(out, Erased{MemberID: memberID})
		}
	}
	return out, nil
}

// bookChange is what one book event, recorded as e, does to the view; nil for nothing.
func bookChange(bookID string, e eventstore.Event, event books.Event) Change {
	switch ev := event.(type) {
	case books.BookAdded:
		return Titled{BookID: bookID, Title: ev.Title}
	case books.HoldPlaced:
		return Placed{Hold: Hold{BookID: bookID, MemberID: ev.MemberID, Seq: e.Version, PlacedAt: stored(e.RecordedAt)}}
	case books.BookHeld:
		return Held{BookID: bookID, MemberID: ev.MemberID, Until: stored(ev.Until)}
	case books.HoldCancelled:
		return Ended{BookID: bookID, MemberID: ev.MemberID}
	case books.HoldExpired:
		return Ended{BookID: bookID, MemberID: ev.MemberID}
	case books.HoldFulfilled:
		return Ended{BookID: bookID, MemberID: ev.MemberID}
	}
	return nil
}

// stored is a time as the view keeps it: in UTC, to the microsecond, as PostgreSQL keeps it
// (pgx drops the nanoseconds), so that both stores order, page and show holds alike.
func stored(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
