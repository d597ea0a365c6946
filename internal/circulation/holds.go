package circulation

import (
	"context"

	"library/internal/aggregate"
	"library/internal/errs"
)

// What a row's Holds allows: HoldsTitle, holds on a title (filled by any of its copies) and on
// one copy; HoldsCopy, holds on one copy only; HoldsNone, no hold at all.

// MayHoldCopy refuses a hold on one copy of materialType by a member of group, when the rules
// allow none (errs.HoldsNotAllowed, naming the rule).
func (d Desk) MayHoldCopy(group, materialType string) error {
	t := d.Terms(group, materialType)
	if t.Holds == HoldsNone {
		return errs.E(errs.HoldsNotAllowed, "the rules allow %s no holds on a %s (row %s)",
			GroupOr(group), MaterialTypeOr(materialType), t.From.Holds.Key)
	}
	return nil
}

// MayHoldTitle refuses a hold on a title by a member of group, when the group's rules for
// every material type (the rows (group, *) and (*, *)) allow no hold on titles.
func (d Desk) MayHoldTitle(group string) error {
	t := d.Rules.Table.Resolve(GroupOr(group), Any, d.Defaults)
	if t.Holds != HoldsTitle {
		return errs.E(errs.HoldsNotAllowed, "the rules allow %s no holds on titles (row %s): hold a copy, where they allow it",
			GroupOr(group), t.From.Holds.Key)
	}
	return nil
}

// Holders is what a title's hold asks of members' accounts (accounts.Service is one).
type Holders interface {
	MayHold(ctx context.Context, memberID string) (aggregate.Also, error)
	GroupOf(ctx context.Context, memberID string) (string, error)
}

// TitleHolds is Holders that also refuses a title hold the rules do not allow the member's
// group (MayHoldTitle), read from Desk when the hold is decided.
type TitleHolds struct {
	Holders
	Desk func(context.Context) (Desk, error)
}

// MayHold refuses a hold on a title the rules or the account do not allow.
func (h TitleHolds) MayHold(ctx context.Context, memberID string) (aggregate.Also, error) {
	group, err := h.GroupOf(ctx, memberID)
	if err != nil {
		return aggregate.Also{}, err
	}
	desk, err := h.Desk(ctx)
	if err != nil {
		return aggregate.Also{}, err
	}
	if err := desk.MayHoldTitle(group); err != nil {
		return aggregate.Also{}, err
	}
	return h.Holders.MayHold(ctx, memberID)
}
