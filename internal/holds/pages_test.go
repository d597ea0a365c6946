package holds_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/holds"
)

// readPages reads every page of a filter, following each page's Next through ParseFilter as a
// client would, and checks what every reader of pages relies on: only the last page has no
// Next, and no page after the first is empty or longer than the limit.
func (w *world) readPages(t *testing.T, f holds.Filter) []holds.Hold {
	t.Helper()
	var out []holds.Hold
	for pages := 1; ; pages++ {
		page := w.list(t, f)
		require.LessOrEqual(t, len(page.Holds), f.Limit)
		if pages > 1 {
			require.NotEmpty(t, page.Holds, "a page after a next is never empty")
		}
		out = append(out, page.Holds...)
		next := page.Next()
		if next == "" {
			return out
		}
		require.Len(t, page.Holds, f.Limit, "only the last page is short")
		following, err := holds.ParseFilter(f.Status, f.BookID, fmt.Sprint(f.Limit), next)
		require.NoError(t, err, "a next is a valid cursor")
		f.After = following.After
		require.Less(t, pages, 1000, "paging does not end")
	}
}

func keysOf(hs []holds.Hold) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = fmt.Sprintf("%s %s %s %d %s", h.BookID, h.MemberID, h.Status(), h.Place, h.Until.Format(time.RFC3339))
	}
	return out
}

// Paging, on both stores: every hold once, whatever the page size, with each filter. Without
// a status, and for waiting holds, in (bookId, the order they were placed in) order: each
// book's holder, then its queue, places 1, 2, 3...; the hold shelf in (until, bookId) order,
// soonest to leave first. Book ids sort byte by byte, and many books leave the shelf at the
// same second. A hold that ends between two pages is not shown, the rest once.
func TestViewPages(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		const n = 40
		var ids []string
		for _, i := range rand.Perm(n) {
			id := fmt.Sprintf("b%02d", i)
			if i%2 == 1 {
				id = fmt.Sprintf("B%02d", i) // capitals sort before small letters
			}
			ids = append(ids, id)
			w.add(t, id, "Title "+id)
			w.lend(t, id, "loan-"+id, "zed")
			for m := range i % 5 {
				w.place(t, id, fmt.Sprintf("m%d", (i+m)%7))
			}
		}
		for _, id := range ids[:n/2] {
			w.giveBack(t, id, "loan-"+id) // held for the first in line, if any
			if rand.IntN(3) == 0 {
				w.clock.Advance(time.Duration(rand.IntN(3)) * time.Hour)
			}
		}
		w.catchUp(t)

		all := w.list(t, holds.Filter{Limit: holds.MaxPageSize})
		require.False(t, all.More)
		require.Greater(t, len(all.Holds), 40)
		requireQueueOrder(t, all.Holds)
		shelf := w.list(t, holds.Filter{Status: holds.Ready, Limit: holds.MaxPageSize}).Holds
		require.Greater(t, len(shelf), 5)
		assert.True(t, slices.IsSortedFunc(shelf, func(a, b holds.Hold) int {
			if c := a.Until.Compare(b.Until); c != 0 {
				return c
			}
			return strings.Compare(a.BookID, b.BookID)
		}), "the shelf soonest to leave first: %v", keysOf(shelf))
		assert.ElementsMatch(t, keysOf(shelf), keysOf(filtered(all.Holds, func(h holds.Hold) bool { return h.Status() == holds.Ready })))

		for _, limit := range []int{1, 2, 7, len(all.Holds) - 1, len(all.Holds), holds.DefaultPageSize} {
			assert.Equal(t, keysOf(all.Holds), keysOf(w.readPages(t, holds.Filter{Limit: limit})), "limit %d", limit)
			assert.Equal(t, keysOf(shelf), keysOf(w.readPages(t, holds.Filter{Status: holds.Ready, Limit: limit})), "ready, limit %d", limit)
			waiting := filtered(all.Holds, func(h holds.Hold) bool { return h.Status() == holds.Waiting })
			assert.Equal(t, keysOf(waiting), keysOf(w.readPages(t, holds.Filter{Status: holds.Waiting, Limit: limit})), "waiting, limit %d", limit)
		}
		for _, id := range ids[:6] {
			own := filtered(all.Holds, func(h holds.Hold) bool { return h.BookID == id })
			assert.Equal(t, keysOf(own), keysOf(w.readPages(t, holds.Filter{BookID: id, Limit: 2})), "book %s", id)
		}

		first := w.list(t, holds.Filter{Limit: 10})
		require.NotEmpty(t, first.Next())
		gone := all.Holds[15]
		w.cancel(t, gone.BookID, gone.MemberID)
		w.catchUp(t)
		after, err := holds.ParseFilter("", "", "10", first.Next())
		require.NoError(t, err)
		rest := w.readPages(t, after)
		var want []string
		for _, h := range w.list(t, holds.Filter{Limit: holds.MaxPageSize}).Holds {
			if keyAfter(h, all.Holds[9]) {
				want = append(want, keysOf([]holds.Hold{h})[0])
			}
		}
		assert.Equal(t, want, keysOf(rest))
		assert.NotContains(t, keysOf(rest), keysOf([]holds.Hold{gone})[0])
	})
}

// requireQueueOrder checks the queues' order: by book id, each book's holder first, then its
// waiting members with places 1, 2, 3...
func requireQueueOrder(t *testing.T, hs []holds.Hold) {
	t.Helper()
	for i, h := range hs {
		sameBook := i > 0 && hs[i-1].BookID == h.BookID
		if i > 0 {
			require.LessOrEqual(t, hs[i-1].BookID, h.BookID, "by book id: %v", keysOf(hs))
		}
		switch {
		case h.Status() == holds.Ready:
			require.False(t, sameBook, "the holder first: %v", keysOf(hs))
		case sameBook && hs[i-1].Status() == holds.Waiting:
			require.Equal(t, hs[i-1].Place+1, h.Place, "places count up: %v", keysOf(hs))
		default:
			require.Equal(t, 1, h.Place, "the first in line: %v", keysOf(hs))
		}
	}
}

// keyAfter reports whether h comes after last in the queues' order.
func keyAfter(h, last holds.Hold) bool {
	return h.BookID > last.BookID || (h.BookID == last.BookID && h.Seq > last.Seq)
}

func filtered(hs []holds.Hold, keep func(holds.Hold) bool) []holds.Hold {
	var out []holds.Hold
	for _, h := range hs {
		if keep(h) {
			out = append(out, h)
		}
	}
	return out
}
