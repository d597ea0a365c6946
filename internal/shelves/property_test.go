package shelves_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/reservations"
	"library/internal/shelves"
	"library/internal/titles"
)

const pickup = time.Hour

// library is one title with copies, its members, and the clock the test drives.
type library struct {
	ctx    context.Context
	now    time.Time
	titles *titles.Service
	books  *books.Service
	holds  shelves.Holds
	copies []string
	// placed are the members in the order their holds were placed, for the queue's order.
	placed []string
	loans  int
}

func newLibrary(t *rapid.T) *library {
	l := &library{ctx: context.Background(), now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	clock := func() time.Time { return l.now }
	log := eventstore.NewMemory(nil)
	opts := aggregate.Options{}
	l.titles = titles.NewService(log, opts, clock, reservations.NewService(log, opts)).WithHolds(titles.HoldPolicy{MaxQueue: 100}, nil)
	l.books = books.NewService(log, opts, clock, books.Policy{LoanPeriod: 14 * 24 * time.Hour, MaxRenewals: 2,
		Holds: books.HoldPolicy{MaxQueue: 100, Pickup: pickup}}, nil).WithTitles(shelves.Shelves{Titles: l.titles})
	l.holds = shelves.Holds{Titles: l.titles, Books: l.books}
	_, err := l.titles.Add(l.ctx, titles.AddTitle{ID: "dune", Title: "Dune", Authors: []string{"Frank Herbert"}}, aggregate.Origin{})
	must(t, err)
	return l
}

func must(t *rapid.T, err error) {
	if err != nil {
		t.Fatalf("%v", err)
	}
}

// refusedOnly fails on anything but a refusal with a code the rules give.
func refusedOnly(t *rapid.T, err error, codes ...errs.Code) {
	if err == nil {
		return
	}
	for _, c := range codes {
		if errs.Is(err, c) {
			return
		}
	}
	t.Fatalf("unexpected: %v", err)
}

var members = []string{"ann", "ben", "cid", "dot", "eve", "fay"}

func (l *library) addCopy(t *rapid.T) {
	id := fmt.Sprintf("c%d", len(l.copies)+1)
	_, err := l.books.AddCopy(l.ctx, books.AddCopy{ID: id, TitleID: "dune", Barcode: "B" + id}, aggregate.Origin{})
	must(t, err)
	l.copies = append(l.copies, id)
}

func (l *library) place(t *rapid.T) {
	m := rapid.SampledFrom(members).Draw(t, "member")
	_, err := l.titles.PlaceHold(l.ctx, "dune", titles.PlaceHold{MemberID: m}, aggregate.Origin{})
	refusedOnly(t, err, errs.TitleAvailable, errs.AlreadyHeld)
	if err == nil {
		l.placed = append(l.placed, m)
	}
}

func (l *library) cancel(t *rapid.T) {
	m := rapid.SampledFrom(members).Draw(t, "member")
	_, err := l.holds.Cancel(l.ctx, "dune", m, aggregate.Origin{})
	refusedOnly(t, err, errs.NotFound)
}

func (l *library) lend(t *rapid.T) {
	if len(l.copies) == 0 {
		return
	}
	c := rapid.SampledFrom(l.copies).Draw(t, "copy")
	m := rapid.SampledFrom(members).Draw(t, "member")
	l.loans++
	_, err := l.books.Lend(l.ctx, c, books.LendBook{LoanID: fmt.Sprintf("loan-%d", l.loans), MemberID: m}, aggregate.Origin{})
	refusedOnly(t, err, errs.BookAlreadyLent, errs.BookOnHold)
}

func (l *library) giveBack(t *rapid.T) {
	if len(l.copies) == 0 {
		return
	}
	c := rapid.SampledFrom(l.copies).Draw(t, "copy")
	b, _, err := l.books.Get(l.ctx, c)
	must(t, err)
	if b.Loan == nil {
		return
	}
	_, err = l.books.Return(l.ctx, c, books.ReturnBook{LoanID: b.Loan.LoanID}, aggregate.Origin{})
	must(t, err)
}

// expire lets the hold shelf's time run out on every copy held: as the hold-shelf saga's timers
// would, each copy's hold is expired.
func (l *library) expire(t *rapid.T) {
	l.now = l.now.Add(pickup + time.Second)
	for _, c := range l.copies {
		b, _, err := l.books.Get(l.ctx, c)
		must(t, err)
		if b.Held == nil {
			continue
		}
		_, err = l.books.ExpireHold(l.ctx, c, books.ExpireHold{MemberID: b.Held.MemberID, Until: b.Held.Until}, aggregate.Origin{})
		must(t, err)
	}
}

// check holds the rules: the title and its copies agree on where each copy is; no member holds
// two copies, or waits while one is held for them; no copy is on the shelf while a hold waits;
// and the queue keeps the order holds were placed in.
func (l *library) check(t *rapid.T) {
	title, _, err := l.titles.Get(l.ctx, "dune")
	must(t, err)
	holders := map[string]bool{}
	for _, c := range title.Copies {
		b, _, err := l.books.Get(l.ctx, c.BookID)
		must(t, err)
		switch c.State {
		case titles.Held:
			if b.Held == nil || b.Held.MemberID != c.MemberID || b.Loan != nil {
				t.Fatalf("copy %s: the title holds it for %s, the copy says %+v, loan %+v", c.BookID, c.MemberID, b.Held, b.Loan)
			}
			if holders[c.MemberID] || title.Place(c.MemberID) > 0 {
				t.Fatalf("%s holds two copies, or waits while holding one", c.MemberID)
			}
			holders[c.MemberID] = true
		case titles.Lent:
			if b.Loan == nil || b.Loan.MemberID != c.MemberID || b.Held != nil {
				t.Fatalf("copy %s: the title lends it to %s, the copy says loan %+v, held %+v", c.BookID, c.MemberID, b.Loan, b.Held)
			}
		case titles.OnShelf:
			if b.Loan != nil || b.Held != nil {
				t.Fatalf("copy %s: on the shelf for the title, the copy says loan %+v, held %+v", c.BookID, b.Loan, b.Held)
			}
			if len(title.Holds) > 0 {
				t.Fatalf("copy %s is on the shelf while %d wait", c.BookID, len(title.Holds))
			}
		}
	}
	last := -1
	for _, h := range title.Holds {
		at := slices.Index(l.placed, h.MemberID)
		for i := at + 1; i < len(l.placed) && at >= 0; i++ {
			if l.placed[i] == h.MemberID {
				at = i // placed again later: their current hold is a later one
			}
		}
		if at <= last {
			t.Fatalf("the queue %v is out of the order of placing %v", title.Holds, l.placed)
		}
		last = at
	}
}

// Place, cancel, return, add a copy, expire and lend, in any order, on a title with several
// copies: at most one holder per copy, each hold trapped at most once, the queue's order kept.
func TestHoldsOnATitleKeepTheRules(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		l := newLibrary(t)
		for range rapid.IntRange(1, 3).Draw(t, "copies") {
			l.addCopy(t)
		}
		t.Repeat(map[string]func(*rapid.T){
			"place":  l.place,
			"cancel": l.cancel,
			"lend":   l.lend,
			"return": l.giveBack,
			"add":    func(t *rapid.T) { l.addCopy(t) },
			"expire": l.expire,
			"":       l.check,
		})
	})
}
