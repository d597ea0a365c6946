package loans

import (
	"context"
	"time"

	"library/internal/processor"
)

// EachDue hands each the current loans due at or after from and before to (a zero time bounds
// nothing), a page at a time in the order of pages, and returns the position of the view as of
// its first page: every loan it hands over is as the view had it at that position or a later
// one. A loan whose due time stays is handed over once however the view moves meanwhile. It
// stops at the first error each returns.
func EachDue(ctx context.Context, v View, from, to time.Time, each func([]Loan) error) (processor.Position, error) {
	f := Filter{Limit: MaxPageSize}
	if !to.IsZero() {
		f.DueBefore = stored(to)
	}
	if !from.IsZero() {
		// An empty book id comes before every book's: the loans due at from itself are after it.
		f.After = &Key{DueAt: stored(from)}
	}
	var first processor.Position
	for i := 0; ; i++ {
		page, pos, err := v.List(ctx, f)
		if err != nil {
			return processor.Position{}, err
		}
		if i == 0 {
			first = pos
		}
		if len(page.Loans) > 0 {
			if err := each(page.Loans); err != nil {
				return processor.Position{}, err
			}
		}
		if !page.More || len(page.Loans) == 0 {
			return first, nil
		}
		last := page.Loans[len(page.Loans)-1].key()
		f.After = &last
	}
}
