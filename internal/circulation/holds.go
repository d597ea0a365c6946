package circulation

import (
	"context"

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

// Groups says which patron group a member is in (accounts.Service does).
type Groups interface {
	GroupOf(ctx context.Context, memberID string) (string, error)
}

// TitleHolds refuses a hold on a whole title that the rules do not allow the member's group
// (MayHoldTitle), on the rules read from Desk when the hold is decided.
type TitleHolds struct {
	Groups Groups
	Desk   func(context.Context) (Desk, error)
}

// MayHoldTitle refuses a hold on a title the rules do not allow memberID's group.
func (h TitleHolds) MayHoldTitle(ctx context.Context, memberID string) error {
	group, err := h.Groups.GroupOf(ctx, memberID)
	if err != nil {
		return err
	}
	desk, err := h.Desk(ctx)
	if err != nil {
		return err
	}
	return desk.MayHoldTitle(group)
}
