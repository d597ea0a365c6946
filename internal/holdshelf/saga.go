// Package holdshelf is the saga that keeps the hold shelf moving: a book held for a member
// (books.BookHeld) waits for them until its time, and then goes to the next in line; and a
// member who is forgotten (accounts.MemberErased) leaves every queue they were in.
//
// It runs under a lease like every processor (package processor). A BookHeld schedules a
// durable timer, "hold:<bookId>:<memberId>", due at the hold's Until; the hold's end
// (HoldFulfilled when the holder borrows it, HoldCancelled when they give it up) cancels it.
// When it fires, the book's ExpireHold command records HoldExpired and holds the book for the
// next in line, under a command id made from the timer, so a fire repeated by the next holder
// of the lease records nothing twice; a hold that ended otherwise meanwhile records nothing.
// Timers fire at the database's clock: should the service's clock be behind it, and the book
// not yet see the hold as past its time, the timer is set again a second later.
//
// A MemberErased cancels the member's holds on every book they asked for, found in the log
// (the events that name them); a HoldPlaced that reaches the saga after its member's erasure,
// placed while the erasure was being decided, is cancelled too. So no queue keeps an erased
// member's id, whichever of the two came first.
package holdshelf

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/titles"
)

// Name is the saga's name: its lease, its checkpoint, its timers. Never rename it.
const Name = "hold-shelf"

// Books is what the saga needs of the books (books.Service is one).
type Books interface {
	Get(ctx context.Context, bookID string) (books.Book, int64, error)
	ExpireHold(ctx context.Context, bookID string, c books.ExpireHold, o aggregate.Origin) (aggregate.Result, error)
	CancelHold(ctx context.Context, bookID string, c books.CancelHold, o aggregate.Origin) (aggregate.Result, error)
}

// Titles ends members' holds on titles, waiting or on the hold shelf (shelves.Holds is one).
type Titles interface {
	Cancel(ctx context.Context, titleID, memberID string, o aggregate.Origin) (aggregate.Result, error)
}

// Members is what the saga needs to know of members: whether one was erased (accounts.Service
// is one).
type Members interface {
	Get(ctx context.Context, memberID string) (accounts.Account, int64, error)
}

// Log finds the events that name a member (the event stores are).
type Log interface {
	MemberEvents(ctx context.Context, memberID string) ([]eventstore.Event, error)
}

// Saga expires holds not picked up, and cancels the holds of erased members.
type Saga struct {
	Books   Books
	Titles  Titles
	Members Members
	Log     Log
	// Now is the clock a timer set again is set by. Default time.Now.
	Now func() time.Time
}

// Processor is the saga as a processor to run.
func (s Saga) Processor() processor.Processor {
	return processor.Processor{Name: Name, Kind: processor.KindSaga, Handler: s, Types: []string{
		accounts.MemberErased{}.EventType(), books.BookHeld{}.EventType(), books.HoldFulfilled{}.EventType(),
		books.HoldCancelled{}.EventType(), books.HoldPlaced{}.EventType(), titles.TitleHoldPlaced{}.EventType()}}
}

// actor is who the log says recorded what the saga did.
var actor = eventstore.Actor{Subject: Name, Role: "system"}

// expiry is a timer's data: whose hold on which book, until when.
type expiry struct {
	BookID   string    `json:"bookId"`
	MemberID string    `json:"memberId"`
	Until    time.Time `json:"until"`
}

func timerKey(bookID, memberID string) string { return "hold:" + bookID + ":" + memberID }

// Handle implements processor.Handler.
func (s Saga) Handle(ctx context.Context, e eventstore.Event) error {
	if memberID, ok := accounts.MemberID(e); ok {
		if e.Type != (accounts.MemberErased{}).EventType() {
			return nil
		}
		return s.forget(ctx, memberID)
	}
	if titleID, ok := titles.TitleID(e); ok {
		return s.titleEvent(ctx, titleID, e)
	}
	bookID, ok := books.BookID(e)
	if !ok {
		return nil
	}
	decoded, err := books.Decode(e)
	if err != nil {
		return processor.Unreadable(e, err)
	}
	switch ev := decoded.(type) {
	case books.BookHeld:
		return processor.Schedule(ctx, timerKey(bookID, ev.MemberID), ev.Until,
			expiry{BookID: bookID, MemberID: ev.MemberID, Until: ev.Until})
	case books.HoldFulfilled:
		return processor.Cancel(ctx, timerKey(bookID, ev.MemberID))
	case books.HoldCancelled:
		return processor.Cancel(ctx, timerKey(bookID, ev.MemberID))
	case books.HoldPlaced:
		return s.placedByErased(ctx, bookID, ev.MemberID)
	}
	return nil
}

// Fire implements processor.TimerHandler: a hold's time is up.
func (s Saga) Fire(ctx context.Context, timer processor.Timer) error {
	var x expiry
	if err := json.Unmarshal(timer.Data, &x); err != nil {
		return processor.Park(fmt.Sprintf("timer %s can't be read: %v", timer.Key, err))
	}
	origin := aggregate.Origin{
		CommandID: "hold-expiry:" + x.MemberID + ":" + strconv.FormatInt(x.Until.Unix(), 10),
		Actor:     actor,
	}
	result, err := s.Books.ExpireHold(ctx, x.BookID, books.ExpireHold{MemberID: x.MemberID, Until: x.Until}, origin)
	if err != nil || len(result.Events) > 0 {
		return err
	}
	book, _, err := s.Books.Get(ctx, x.BookID)
	if err != nil {
		return err
	}
	if h := book.Held; h != nil && h.MemberID == x.MemberID && h.Until.Equal(x.Until) {
		// The hold is there and not yet past its time by this service's clock, which is
		// behind the database's: look again in a second.
		return processor.Schedule(ctx, timer.Key, s.now().Add(time.Second), x)
	}
	return nil
}

// forget cancels an erased member's holds on every book they asked to hold.
func (s Saga) forget(ctx context.Context, memberID string) error {
	events, err := s.Log.MemberEvents(ctx, memberID)
	if err != nil {
		return err
	}
	done := map[string]bool{}
	for _, e := range events {
		if done[e.StreamID] {
			continue
		}
		var err error
		if bookID, ok := books.BookID(e); ok && e.Type == (books.HoldPlaced{}).EventType() {
			done[e.StreamID], err = true, s.cancel(ctx, bookID, memberID)
		} else if titleID, ok := titles.TitleID(e); ok && e.Type == (titles.TitleHoldPlaced{}).EventType() {
			done[e.StreamID], err = true, s.cancelOnTitle(ctx, titleID, memberID)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// titleEvent handles a title's event: a hold placed for a member erased since is cancelled.
func (s Saga) titleEvent(ctx context.Context, titleID string, e eventstore.Event) error {
	decoded, err := titles.Decode(e)
	if err != nil {
		return processor.Unreadable(e, err)
	}
	placed, ok := decoded.(titles.TitleHoldPlaced)
	if !ok {
		return nil
	}
	erased, err := s.erased(ctx, placed.MemberID)
	if err != nil || !erased {
		return err
	}
	return s.cancelOnTitle(ctx, titleID, placed.MemberID)
}

// cancelOnTitle cancels a member's hold on a title, which may have none by now.
func (s Saga) cancelOnTitle(ctx context.Context, titleID, memberID string) error {
	origin := aggregate.Origin{CommandID: "erased:" + memberID, Actor: actor}
	_, err := s.Titles.Cancel(ctx, titleID, memberID, origin)
	if errs.Is(err, errs.NotFound) {
		return nil
	}
	return err
}

// erased reports whether a member was erased.
func (s Saga) erased(ctx context.Context, memberID string) (bool, error) {
	account, _, err := s.Members.Get(ctx, memberID)
	if errs.Is(err, errs.NotFound) {
		return false, nil
	}
	return err == nil && account.Erased, err
}

// placedByErased cancels a hold placed for a member erased since.
func (s Saga) placedByErased(ctx context.Context, bookID, memberID string) error {
	erased, err := s.erased(ctx, memberID)
	if err != nil || !erased {
		return err
	}
	return s.cancel(ctx, bookID, memberID)
}

// cancel cancels a member's hold on a book, which may have none by now.
func (s Saga) cancel(ctx context.Context, bookID, memberID string) error {
	origin := aggregate.Origin{CommandID: "erased:" + memberID, Actor: actor}
	_, err := s.Books.CancelHold(ctx, bookID, books.CancelHold{MemberID: memberID}, origin)
	if errs.Is(err, errs.NotFound) {
		return nil
	}
	return err
}

func (s Saga) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}
