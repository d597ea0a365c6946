package titles

import (
	"context"
	"time"

	"library/internal/aggregate"
	"library/internal/errs"
)

// HoldPolicy is how holds on titles work: how many members may wait for one title (HOLDS_MAX).
type HoldPolicy struct {
	MaxQueue int
}

// Holders is what holds need of members' accounts, which package accounts keeps: whether a
// member may place a hold (one the library knows, who does not owe too much). It writes
// nothing to the account.
type Holders interface {
	MayHold(ctx context.Context, memberID string) (aggregate.Also, error)
}

// TitleRules says whether a member may hold a whole title (circulation.TitleHolds does); a hold
// for one copy is the copy's rules' to allow, which package books asks before it gets here.
type TitleRules interface {
	MayHoldTitle(ctx context.Context, memberID string) error
}

// WithHolds has the service take holds under policy, asking holders whether a member may hold,
// and returns it. Without it a title takes no holds.
func (s *Service) WithHolds(policy HoldPolicy, holders Holders) *Service {
	s.holds, s.holders = policy, holders
	return s
}

// WithTitleRules has the service ask rules before it puts a member in a title's queue for any
// copy, and returns it.
func (s *Service) WithTitleRules(rules TitleRules) *Service {
	s.titleRules = rules
	return s
}

// PlaceHold puts a member in the title's queue.
func (s *Service) PlaceHold(ctx context.Context, titleID string, c PlaceHold, o aggregate.Origin) (aggregate.Result, error) {
	if err := validateID(titleID); err != nil {
		return aggregate.Result{}, err
	}
	if s.holds.MaxQueue <= 0 {
		return aggregate.Result{}, errs.E(errs.Internal, "titles take no holds: no hold policy (WithHolds)")
	}
	cmd := aggregate.Command[Title]{
		Name: "placeTitleHold", Origin: o, Payload: c, Validate: c.Validate,
		Decide: func(t Title) ([]Event, error) { return c.Decide(t, s.now(), s.holds.MaxQueue) },
	}
	if s.holders != nil {
		cmd.Also = func(ctx context.Context, _ []Event) (aggregate.Also, error) {
			return s.holders.MayHold(ctx, c.MemberID)
		}
	}
	if s.titleRules != nil && c.BookID == "" {
		if err := c.Validate(); err != nil {
			return aggregate.Result{}, err
		}
		if err := s.titleRules.MayHoldTitle(ctx, c.MemberID); err != nil {
			return aggregate.Result{}, err
		}
	}
	return s.repo.Execute(ctx, titleID, cmd)
}

// CancelHold takes a member out of the title's queue. A member with a copy held for them gives
// it up through the copy: HeldFor says which.
func (s *Service) CancelHold(ctx context.Context, titleID string, c CancelHold, o aggregate.Origin) (aggregate.Result, error) {
	if err := validateID(titleID); err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, titleID, aggregate.Command[Title]{
		Name: "cancelTitleHold", Origin: o, Payload: c, Validate: c.Validate,
		Decide: c.Decide,
	})
}

// ReadQueue returns a title as the log holds it now, and its version, for a copy's command to decide
// on (a title never added has nobody waiting, at version 0).
func (s *Service) ReadQueue(ctx context.Context, titleID string) (Title, int64, error) {
	loaded, err := s.repo.Load(ctx, titleID)
	if err != nil {
		return Title{}, 0, err
	}
	return loaded.State, loaded.Version, nil
}

// Part is the title's part of a copy's append: events, at version (aggregate.Also).
func Part(titleID string, version int64, events []Event) aggregate.Also {
	return aggregate.Also{StreamID: Type().StreamID(titleID), ExpectedVersion: version, Events: events, Codecs: Type().Events}
}

// Now is the service's clock.
func (s *Service) Now() time.Time { return s.now() }
