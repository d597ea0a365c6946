package accounts

import (
	"context"

	"library/internal/aggregate"
	"library/internal/circulation"
	"library/internal/validate"
)

// GroupSet records that the member belongs to patron Group from now on: the group the
// circulation rules are keyed by. A member never given one is in circulation.DefaultGroup.
type GroupSet struct {
	Group string `json:"group"`
}

// EventType names the event in the log; never rename it.
func (GroupSet) EventType() string { return "PatronGroupSet" }

// Group is the member's patron group: the one set last, or circulation.DefaultGroup.
func (a Account) Group() string { return circulation.GroupOr(a.group) }

// SetGroup asks that the member be in patron Group. Its JSON encoding is fingerprinted for
// Idempotency-Keys.
type SetGroup struct {
	Group string `json:"group"`
}

// Checked checks the name and returns the command with it as the rules key it (small letters).
func (c SetGroup) Checked() (SetGroup, error) {
	g, err := circulation.Name("group", c.Group)
	c.Group = g
	return c, err
}

// Decide records the group; the group the member is in already records nothing.
func (c SetGroup) Decide(a Account) ([]Event, error) {
	if a.Group() == c.Group {
		return nil, nil
	}
	return []Event{GroupSet(c)}, nil
}

// SetGroup puts the member in a patron group. The account is started if it has no events yet,
// as a fine or a card starts one; an erased member's is refused (errs.Gone).
func (s *Service) SetGroup(ctx context.Context, memberID string, c SetGroup, o aggregate.Origin) (aggregate.Result, error) {
	if err := validate.MemberID("memberId", memberID); err != nil {
		return aggregate.Result{}, err
	}
	c, err := c.Checked()
	if err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "setGroup", Origin: o, Payload: c, Decide: guarded(memberID, c.Decide),
	})
}

// GroupOf returns the member's patron group as the log holds it now: circulation.DefaultGroup
// for a member the library has no events of.
func (s *Service) GroupOf(ctx context.Context, memberID string) (string, error) {
	if err := validate.MemberID("memberId", memberID); err != nil {
		return "", err
	}
	loaded, err := s.repo.Load(ctx, memberID)
	if err != nil {
		return "", err
	}
	return loaded.State.Group(), nil
}
