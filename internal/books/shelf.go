package books

import (
	"context"
	"time"

	"library/internal/aggregate"
)

// A copy on its title: a copy whose title records it (Book.OnTitle) records on the title, in
// the same append as its own events, what its commands did to it: lent, back on the shelf,
// held for a member, given up. And a copy that comes free (returned, added, its hold shelf time
// over or given up) fills the next hold of its title's queue that it can: the command reads the
// queue before it decides (aggregate.Command.Prepare) and writes to the title at the version it
// read, so two copies that come free at once, on any replicas, never fill one hold, and a hold
// placed while a copy comes back either sees it on the shelf or is filled by it.

// CopyAdopted records that the title of a book added before books were copies now records it:
// the adoption saga moved the book's waiting holds, those of Moved, to the title in this append.
type CopyAdopted struct {
	TitleID string   `json:"titleId"`
	Moved   []string `json:"moved,omitempty"`
}

// EventType names the event in the log; never rename it.
func (CopyAdopted) EventType() string { return "CopyAdopted" }

// Queue is a title's queue as a copy's command reads it: the first member waiting whose hold a
// copy can fill, "" for none (titles.Title is one).
type Queue interface {
	Next(bookID string) string
	// Waiting counts the members waiting whose holds the copy bookID can fill.
	Waiting(bookID string) int
}

// Shelf is what a copy's commands need of its title's queue, which package titles keeps
// (internal/app fills it with titles.Service).
type Shelf interface {
	// ReadQueue returns the title's queue as the log holds it now, and the version it was read
	// at.
	ReadQueue(ctx context.Context, titleID string) (Queue, int64, error)
	// Moved returns the title's part of a copy's append, at version: what decided, the copy's
	// events, did to the copy bookID.
	Moved(ctx context.Context, titleID string, version int64, bookID string, decided []Event) (aggregate.Also, error)
}

// onShelf is one command's look at its copy's title: the queue it read before its decision and
// the version it read it at. It is nil for a copy that is on no title.
type onShelf struct {
	titleID string
	queue   Queue
	version int64
	// shelf says how long a copy held by the command waits; the zero value: the policy's Pickup.
	shelf shelfTime
}

// shelved wraps a copy's command so that it reads its title's queue before each decision,
// fills the next hold with the copy when the decided events leave it free, and writes what it
// did to the copy on the title; the account's part (account, nil for none) goes with it. A copy
// on no title, or a service without titles, decides as a book alone.
func (s *Service) shelved(cmd aggregate.Command[Book], bookID, titleID string, account func(context.Context, []Event) (aggregate.Also, error)) aggregate.Command[Book] {
	return s.queued(cmd, bookID, titleID, account, nil)
}

// queued is shelved, with check, when set, asked first whether the queue lets the command be
// decided at all. A Prepare the command has already is kept, and runs before the queue is read.
func (s *Service) queued(cmd aggregate.Command[Book], bookID, titleID string, account func(context.Context, []Event) (aggregate.Also, error),
	check func(Book, Queue) error) aggregate.Command[Book] {
	if s.shelf == nil {
		cmd.Also = account
		return cmd
	}
	var on *onShelf
	decide, prepare := cmd.Decide, cmd.Prepare
	cmd.Prepare = func(ctx context.Context, b Book) error {
		on = nil
		if prepare != nil { // the command's own look elsewhere (an offline loan's account) first
			if err := prepare(ctx, b); err != nil {
				return err
			}
		}
		if titleID == "" && (!b.Added || !b.OnTitle) {
			return nil
		}
		id := titleID
		if id == "" {
			id = b.TitleID
		}
		q, version, err := s.shelf.ReadQueue(ctx, id)
		if err != nil {
			return err
		}
		st, err := s.shelfTime(ctx)
		if err == nil {
			on = &onShelf{titleID: id, queue: q, version: version, shelf: st}
		}
		return err
	}
	cmd.Decide = func(b Book) ([]Event, error) {
		if on != nil && check != nil {
			if err := check(b, on.queue); err != nil {
				return nil, err
			}
		}
		decided, err := decide(b)
		if err != nil || on == nil || len(decided) == 0 {
			return decided, err
		}
		return s.fillNext(b, bookID, decided, on), nil
	}
	cmd.Also = func(ctx context.Context, decided []Event) (aggregate.Also, error) {
		var part aggregate.Also
		if account != nil {
			var err error
			if part, err = account(ctx, decided); err != nil {
				return aggregate.Also{}, err
			}
		}
		if on == nil {
			return part, nil
		}
		title, err := s.shelf.Moved(ctx, on.titleID, on.version, bookID, decided)
		if err != nil {
			return aggregate.Also{}, err
		}
		return join(title, part), nil
	}
	return cmd
}

// fillNext is decided, and, when it leaves the copy free on the shelf and a member waits whose
// hold it can fill, the copy held for the first of them.
func (s *Service) fillNext(b Book, bookID string, decided []Event, on *onShelf) []Event {
	after := Clone(b)
	for _, e := range decided {
		after = Apply(after, e)
	}
	if !after.Added || after.Loan != nil || after.Held != nil || after.Missing != nil {
		return decided
	}
	next := on.queue.Next(bookID)
	if next == "" {
		return decided
	}
	now, pickup := s.now(), s.policy.Holds.Pickup
	if on.shelf.desk != nil {
		pickup = on.shelf.pickup(after, now)
	}
	return append(decided, BookHeld{MemberID: next, Until: heldUntil(now, pickup)})
}

// heldUntil is when a copy held at now leaves the hold shelf.
func heldUntil(now time.Time, pickup time.Duration) time.Time {
	return now.UTC().Truncate(time.Second).Add(pickup)
}

// join is the title's part and the command's other parts (more: the account's, or a new copy's
// own part of its title, with its barcode) as one Also. A part of more on the title's stream is
// merged into the title's: its events first, at the version the queue was read at, which is no
// later than the one it was decided at, so that, should they differ, the append is refused and
// the command decided again.
func join(title, more aggregate.Also) aggregate.Also {
	switch {
	case more.StreamID == "" && len(more.Events) == 0 && len(more.More) == 0:
		return title
	case more.StreamID == title.StreamID:
		title.Events = append(more.Events[:len(more.Events):len(more.Events)], title.Events...)
		title.More = append(more.More[:len(more.More):len(more.More)], title.More...)
		return title
	}
	title.More = append(title.More[:len(title.More):len(title.More)], more)
	return title
}
