package circulation

import (
	"context"
	"fmt"
	"sync"
	"time"

	"library/internal/calendar"
	"library/internal/errs"
)

// The group and material type of members and copies that were never given one.
const (
	DefaultGroup        = "adult"
	DefaultMaterialType = "book"
)

// Desk is what the circulation desk consults for one decision: the table at its version, the
// environment's defaults under it, and the library's calendar in its zone. It is a value, read
// once per command, so that a decision is made on one table and one calendar throughout.
type Desk struct {
	Rules    Rules
	Defaults Row
	Calendar calendar.Calendar
}

// Terms resolves the table for a member of group borrowing a copy of materialType; an empty
// group or type is DefaultGroup or DefaultMaterialType.
func (d Desk) Terms(group, materialType string) Terms {
	return d.Rules.Table.Resolve(GroupOr(group), MaterialTypeOr(materialType), d.Defaults)
}

// TypeTerms resolves the table for materialType and no group in particular: the rows for every
// group (Any) decide, for what the library does with a copy whoever it is for (how long it
// waits on the hold shelf).
func (d Desk) TypeTerms(materialType string) Terms {
	return d.Rules.Table.Resolve(Any, MaterialTypeOr(materialType), d.Defaults)
}

// LoanTerms are Terms(group, materialType) as a loan keeps them.
func (d Desk) LoanTerms(group, materialType string) (Terms, LoanTerms) {
	group, materialType = GroupOr(group), MaterialTypeOr(materialType)
	t := d.Terms(group, materialType)
	return t, t.Loan(group, materialType, d.Rules.Version)
}

// GroupOr is group, or DefaultGroup when it is empty.
func GroupOr(group string) string {
	if group == "" {
		return DefaultGroup
	}
	return group
}

// MaterialTypeOr is materialType, or DefaultMaterialType when it is empty.
func MaterialTypeOr(materialType string) string {
	if materialType == "" {
		return DefaultMaterialType
	}
	return materialType
}

// LoanLimit is how many loans a member may have at once under the row that decided a loan's
// MaxLoans: of MaterialType alone, or, when the row was keyed by every type (Any), of every
// type. Group and MaterialType name the rule in a refusal ("3 dvds at once for adult").
type LoanLimit struct {
	Max          int
	Group        string
	MaterialType string
	// AllTypes: the limit counts every loan the member has, not only those of MaterialType.
	AllTypes bool
}

// Limit is the loan limit that terms resolved for group and materialType make.
func (t Terms) Limit(group, materialType string) LoanLimit {
	return LoanLimit{Max: t.MaxLoans, Group: GroupOr(group), MaterialType: MaterialTypeOr(materialType),
		AllTypes: t.From.MaxLoans.MaterialType == Any}
}

// String names the limit as a refusal says it: "3 dvd loans at once for adult", or "20 loans
// at once for adult" for a limit on every type.
func (l LoanLimit) String() string {
	if l.AllTypes {
		return fmt.Sprintf("%s at once for %s", errs.Count(l.Max, "loan", "loans"), l.Group)
	}
	return fmt.Sprintf("%d %s %s at once for %s", l.Max, l.MaterialType, plural(l.Max), l.Group)
}

func plural(n int) string {
	if n == 1 {
		return "loan"
	}
	return "loans"
}

// Name checks a patron group's or a material type's name as a client sent it (not Any), and
// returns it as the table keys it, in small letters: "DVD" is the type a row keyed "dvd" is
// about. errs.InvalidRequest names field, never the value.
func Name(field, s string) (string, error) {
	folded := lower(s)
	if folded == Any || !isName(folded) {
		return "", errs.E(errs.InvalidRequest, "%s must be 1 to %d characters from a-z 0-9 - _", field, MaxNameLength)
	}
	return folded, nil
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Reader reads a Desk from the rules' and the calendar's streams, and keeps it for Refresh:
// a loan reads the rules and the calendar, which change a few times a year, and a desk read for
// every loan would cost two reads of the log each. A change made on this replica is read at the
// next decision (the services tell the Reader: Watch); one made on another replica, within
// Refresh. Refresh 0 reads the log for every decision.
type Reader struct {
	Rules    *Service
	Calendar *calendar.Service
	Defaults Row
	Zone     *time.Location
	Refresh  time.Duration

	mu     sync.Mutex
	kept   *Desk
	keptAt time.Time
	// changes counts the changes told (forget), so that a desk read before one is not kept.
	changes int
}

// Watch has the services tell r when they record a change, and returns r.
func (r *Reader) Watch() *Reader {
	r.Rules.OnChange(r.forget)
	r.Calendar.OnChange(r.forget)
	return r
}

// forget drops the desk kept, so that the next decision reads the log.
func (r *Reader) forget() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kept = nil
	r.changes++
}

// Desk returns the table and the calendar: as the log holds them now, or as read less than
// Refresh ago on this replica, with no change recorded here since.
func (r *Reader) Desk(ctx context.Context) (Desk, error) {
	r.mu.Lock()
	if r.kept != nil && time.Since(r.keptAt) < r.Refresh {
		d := *r.kept
		r.mu.Unlock()
		return d, nil
	}
	changes := r.changes
	r.mu.Unlock()
	at := time.Now()
	rules, err := r.Rules.Get(ctx)
	if err != nil {
		return Desk{}, err
	}
	cal, err := r.Calendar.Get(ctx)
	if err != nil {
		return Desk{}, err
	}
	d := Desk{Rules: rules, Defaults: r.Defaults, Calendar: cal.In(r.Zone)}
	r.mu.Lock()
	if r.changes == changes && (r.kept == nil || at.After(r.keptAt)) {
		r.kept, r.keptAt = &d, at
	}
	r.mu.Unlock()
	return d, nil
}
