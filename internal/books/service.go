package books

import (
	"context"
	"math"
	"time"

	"library/internal/aggregate"
	"library/internal/aggregate/core"
	"library/internal/aggregate/stack"
	"library/internal/calendar"
	"library/internal/circulation"
	"library/internal/errs"
	"library/internal/reservations"
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
			aggregate.EventCodec[BookAdded](addedBeforeTitles),
			aggregate.EventCodec[BookLent](),
			aggregate.EventCodec[BookReturned](),
			aggregate.EventCodec[LoanRenewed](),
			aggregate.EventCodec[HoldPlaced](),
			aggregate.EventCodec[HoldCancelled](),
			aggregate.EventCodec[BookHeld](),
			aggregate.EventCodec[HoldExpired](),
			aggregate.EventCodec[HoldFulfilled](),
			aggregate.EventCodec[CopyAdopted](),
			aggregate.EventCodec[MaterialTypeSet](),
			aggregate.EventCodec[DueDateMoved](),
			aggregate.EventCodec[LoanLost](),
			aggregate.EventCodec[ClaimedReturned](),
			aggregate.EventCodec[LostCopyReturned](),
		},
	}
}

// Service runs Book commands and reads books.
type Service struct {
	repo      *core.Repository[Book]
	now       func() time.Time
	policy    Policy
	borrowers Borrowers
	// barcodes keeps copies' barcodes unique; titles, when set, records copies on their titles.
	barcodes *reservations.Service
	titles   Titles
	shelf    Shelf
	// losses keeps members' side of lost copies (lost_service.go); nil charges nothing.
	losses Losses
}

// Policy is how the library lends: for how long (LOAN_PERIOD), how many times a loan may be
// renewed (RENEWALS_MAX), and how holds work.
type Policy struct {
	LoanPeriod  time.Duration
	MaxRenewals int
	Holds       HoldPolicy
	// Desk reads the circulation rules and the calendar that loans, renewals and returns are
	// decided on; nil decides on LoanPeriod and MaxRenewals alone, and records no terms.
	Desk func(context.Context) (circulation.Desk, error)
}

// Borrowers is what loans need of members' accounts, which package accounts keeps and this
// package does not import. A loan and its end are written to the book's stream and the
// member's account in one append (aggregate.Also), so that what is decided on the account at
// the same moment, such as an erasure, conflicts with the loan on the account's stream, and one
// of the two is decided again on what the other did.
type Borrowers interface {
	// Borrow returns the account's part of lending bookID to memberID under loanID, decided on
	// the account as the log holds it now, or why the member may not borrow.
	// limit is the rules' limit on the loans of the copy's type (none: the account's own).
	Borrow(ctx context.Context, memberID, bookID, loanID string, limit circulation.LoanLimit) (aggregate.Also, error)
	// BorrowOverriding is Borrow for a loan made already (offline.go): the account's rules
	// don't refuse it, and the codes of those that would have are returned; a member who can't
	// borrow at all (erased, or an id that can't be a member's) is still refused.
	BorrowOverriding(ctx context.Context, memberID, bookID, loanID string, limit circulation.LoanLimit) (aggregate.Also, []errs.Code, error)
	// GiveBack returns the account's part of the loan's end.
	GiveBack(ctx context.Context, memberID, bookID, loanID string) (aggregate.Also, error)
	// MayHold refuses a hold the member may not place (a member the library does not know,
	// one who owes too much); MayRenew, a renewal. Neither writes to the account: a hold or a
	// renewal decided while a fine is being charged may slip through once (see
	// docs/architecture.md).
	MayHold(ctx context.Context, memberID string) (aggregate.Also, error)
	MayRenew(ctx context.Context, memberID string) (aggregate.Also, error)
	// GroupOf is the member's patron group, which the circulation rules are keyed by. It is
	// read before a loan or a renewal is decided, not in its append: a group changed at that
	// very moment may apply from the next loan.
	GroupOf(ctx context.Context, memberID string) (string, error)
}

// NewService returns a Service on log. now is the clock; policy says how long loans are.
// borrowers keeps members' side of loans; nil lends to any valid member id and records loans on
// books alone. Barcodes are kept unique on the same log; titles are given with WithTitles.
func NewService(log aggregate.Log, opts aggregate.Options, now func() time.Time, policy Policy, borrowers Borrowers) *Service {
	return &Service{repo: core.New(stack.Store(log, Type(), opts), Type(), opts), now: now, policy: policy, borrowers: borrowers,
		barcodes: reservations.NewService(log, opts)}
}

// WithTitles has the service record each copy it adds on its title, in the copy's append, and
// returns it. Without titles a book is added alone, as a copy of the title its title and author
// make (TitleIDOf), which nothing records; copies of titles (AddCopy) are refused.
func (s *Service) WithTitles(t Titles) *Service {
	s.titles, s.shelf = t, t
	return s
}

// Lend lends a book on the rules for the member and the copy; with c.Offline, records a loan
// a kiosk made while offline, over the account's rules (offline.go).
func (s *Service) Lend(ctx context.Context, bookID string, c LendBook, o aggregate.Origin) (aggregate.Result, error) {
	c.Overrode = nil // the account's to say, never the caller's
	if err := c.Validate(); err != nil {
		return aggregate.Result{}, err
	}
	on, err := s.lending(ctx, c.MemberID)
	if err != nil {
		return aggregate.Result{}, err
	}
	cmd := aggregate.Command[Book]{Name: "lendBook", Origin: o, Payload: c, Validate: c.Validate}
	var lim circulation.LoanLimit
	account := s.onAccount(bookID, &lim)
	if c.Offline != nil && s.borrowers != nil {
		account = s.offline(&cmd, &c, bookID, on)
	}
	cmd.Decide = func(b Book) ([]Event, error) {
		lim = on.Limit(b)
		return c.DecideOn(b, s.now(), on)
	}
	return s.repo.Execute(ctx, bookID, s.shelved(cmd, bookID, "", account))
}

// Return ends a loan, with its fine on its terms by the calendar.
func (s *Service) Return(ctx context.Context, bookID string, c ReturnBook, o aggregate.Origin) (aggregate.Result, error) {
	if err := c.Validate(); err != nil {
		return aggregate.Result{}, err
	}
	st, err := s.shelfTime(ctx)
	if err != nil {
		return aggregate.Result{}, err
	}
	var cal *calendar.Calendar
	if st.desk != nil {
		cal = &st.desk.Calendar
	}
	return s.repo.Execute(ctx, bookID, s.shelved(aggregate.Command[Book]{
		Name: "returnBook", Origin: o, Payload: c, Validate: c.Validate,
		Decide: func(b Book) ([]Event, error) {
			now := s.now()
			return c.DecideOn(b, now, st.pickup(b, now), cal)
		},
	}, bookID, "", s.onAccount(bookID, nil)))
}

// Renew moves a current loan's due time, on the rules as they are now. A copy that a member
// waiting for its title could have is not renewed (errs.HoldsWaiting), as a book with members
// in its own queue is not.
func (s *Service) Renew(ctx context.Context, bookID string, c RenewLoan, o aggregate.Origin) (aggregate.Result, error) {
	if err := c.Validate(); err != nil {
		return aggregate.Result{}, err
	}
	on, err := s.renewing(ctx, bookID)
	if err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, bookID, s.queued(aggregate.Command[Book]{
		Name: "renewLoan", Origin: o, Payload: c, Validate: c.Validate,
		Decide: func(b Book) ([]Event, error) { return c.DecideOn(b, s.now(), on) },
	}, bookID, "", s.check(func(ctx context.Context, decided []Event) (aggregate.Also, error) {
		return s.borrowers.MayRenew(ctx, decided[0].(LoanRenewed).MemberID)
	}), waitedFor))
}

// renewing reads what a renewal of bookID's loan is decided on: the rules for its borrower.
func (s *Service) renewing(ctx context.Context, bookID string) (Lending, error) {
	member := ""
	if s.policy.Desk != nil {
		b, _, err := s.Get(ctx, bookID)
		if err != nil {
			return Lending{}, err
		}
		if b.Loan != nil {
			member = b.Loan.MemberID
		}
	}
	return s.lending(ctx, member)
}

// waitedFor refuses a renewal of a copy that a member waiting for its title could have.
func waitedFor(b Book, q Queue) error {
	n := q.Waiting(b.ID)
	if b.Loan == nil || n == 0 {
		return nil
	}
	return errs.E(errs.HoldsWaiting, "%s for book %s: return it for them", errs.Count(n, "member waits", "members wait"), b.ID)
}

// PlaceHold puts a member in the book's queue: for a copy its title records, the title's queue,
// for that copy alone.
func (s *Service) PlaceHold(ctx context.Context, bookID string, c PlaceHold, o aggregate.Origin) (aggregate.Result, error) {
	if err := s.mayHold(ctx, bookID, c); err != nil {
		return aggregate.Result{}, err
	}
	if on, err := s.onTitle(ctx, bookID, c.Validate); on != nil || err != nil {
		if err != nil {
			return aggregate.Result{}, err
		}
		return s.titles.HoldCopy(ctx, on.TitleID, bookID, c.MemberID, o)
	}
	return s.repo.Execute(ctx, bookID, aggregate.Command[Book]{
		Name: "placeHold", Origin: o, Payload: c, Validate: c.Validate,
		Decide: func(b Book) ([]Event, error) { return c.Decide(b, s.policy.Holds) },
		Also: s.check(func(ctx context.Context, _ []Event) (aggregate.Also, error) {
			return s.borrowers.MayHold(ctx, c.MemberID)
		}),
	})
}

// CancelHold takes a member out of the queue, or off the hold shelf. A member waiting for a copy
// its title records waits in the title's queue, and leaves that.
func (s *Service) CancelHold(ctx context.Context, bookID string, c CancelHold, o aggregate.Origin) (aggregate.Result, error) {
	if on, err := s.onTitle(ctx, bookID, c.Validate); on != nil || err != nil {
		if err != nil {
			return aggregate.Result{}, err
		}
		if on.Held == nil || on.Held.MemberID != c.MemberID {
			return s.titles.LeaveQueue(ctx, on.TitleID, c.MemberID, o)
		}
	}
	st, err := s.shelfTime(ctx)
	if err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, bookID, s.shelved(aggregate.Command[Book]{
		Name: "cancelHold", Origin: o, Payload: c, Validate: c.Validate,
		Decide: func(b Book) ([]Event, error) {
			now := s.now()
			return c.Decide(b, now, st.holds(s.policy.Holds, b, now))
		},
	}, bookID, "", nil))
}

// ExpireHold ends a hold on the shelf that was not picked up in time.
func (s *Service) ExpireHold(ctx context.Context, bookID string, c ExpireHold, o aggregate.Origin) (aggregate.Result, error) {
	st, err := s.shelfTime(ctx)
	if err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, bookID, s.shelved(aggregate.Command[Book]{
		Name: "expireHold", Origin: o, Payload: c,
		Decide: func(b Book) ([]Event, error) {
			now := s.now()
			return c.Decide(b, now, st.holds(s.policy.Holds, b, now))
		},
	}, bookID, "", nil))
}

// onTitle returns the copy bookID when its title records it (and the service has titles), nil
// otherwise, after checking the command's fields.
func (s *Service) onTitle(ctx context.Context, bookID string, validate func() error) (*Book, error) {
	if s.titles == nil {
		return nil, nil
	}
	if err := validate(); err != nil {
		return nil, err
	}
	b, _, err := s.Get(ctx, bookID)
	if err != nil || !b.OnTitle {
		return nil, err
	}
	return &b, nil
}

// check is an Also that asks the member's account without writing to it; nil without
// Borrowers.
func (s *Service) check(ask func(ctx context.Context, decided []Event) (aggregate.Also, error)) func(context.Context, []Event) (aggregate.Also, error) {
	if s.borrowers == nil {
		return nil
	}
	return ask
}

// onAccount is the Also of the commands that start and end loans: the member's account's part
// of what they decided, a loan under the limit *limit says (nil: none). Nil without Borrowers.
func (s *Service) onAccount(bookID string, limit *circulation.LoanLimit) func(context.Context, []Event) (aggregate.Also, error) {
	if s.borrowers == nil {
		return nil
	}
	return func(ctx context.Context, decided []Event) (aggregate.Also, error) {
		for _, e := range decided {
			switch e := e.(type) {
			case BookLent:
				var l circulation.LoanLimit
				if limit != nil {
					l = *limit
				}
				return s.borrowers.Borrow(ctx, e.MemberID, bookID, e.LoanID, l)
			case BookReturned:
				return s.borrowers.GiveBack(ctx, e.MemberID, bookID, e.LoanID)
			case LoanLost, ClaimedReturned, LostCopyReturned:
				return s.missingOnAccount(ctx, bookID, e)
			}
		}
		return aggregate.Also{}, nil
	}
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
