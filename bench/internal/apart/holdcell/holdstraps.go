package holdcell

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"
)

// trapRound returns the long title's copies at once, HoldsConcurrency at a time, checks that
// each was held for one of the first members waiting, and then lends each to its member.
func (g *holdsRig) trapRound(ctx context.Context) (TrapRound, []time.Duration, error) {
	q, err := g.api.Queue(ctx, holdsLong)
	if err != nil {
		return TrapRound{}, nil, err
	}
	round := TrapRound{Waiting: len(q.Waiting), Returns: HoldsCopies}
	if len(q.Waiting) < HoldsCopies {
		return round, nil, fmt.Errorf("%d waiting, fewer than the %d copies", len(q.Waiting), HoldsCopies)
	}
	books := slices.Sorted(maps.Keys(g.loans))
	heldFor := make([]string, len(books))
	lat := make([]time.Duration, len(books))
	start := time.Now()
	err = each(ctx, indexes(len(books)), HoldsConcurrency, func(ctx context.Context, i int) error {
		t0 := time.Now()
		member, err := g.api.ReturnBook(ctx, books[i], g.loans[books[i]])
		lat[i] = time.Since(t0)
		if err == nil && member == "" {
			err = fmt.Errorf("returning %s held it for nobody, with %d waiting", books[i], round.Waiting)
		}
		heldFor[i] = member
		return err
	})
	round.Span = time.Since(start)
	if err != nil {
		return round, nil, err
	}
	round.PerSecond = float64(round.Returns) / round.Span.Seconds()

	var next []string
	for _, w := range q.Waiting[:HoldsCopies] {
		next = append(next, w.MemberID)
	}
	if got := slices.Sorted(slices.Values(heldFor)); !slices.Equal(got, slices.Sorted(slices.Values(next))) {
		return round, nil, fmt.Errorf("the copies were held for %v, not for the first %d waiting, %v", got, HoldsCopies, next)
	}
	g.keys++
	loans := make([]string, len(books))
	err = each(ctx, indexes(len(books)), HoldsConcurrency, func(ctx context.Context, i int) error {
		loans[i] = fmt.Sprintf("%s-loan-%d", books[i], g.keys)
		return g.api.LendAs(ctx, books[i], loans[i], heldFor[i])
	})
	for i, b := range books {
		g.loans[b] = loans[i]
	}
	return round, lat, err
}
