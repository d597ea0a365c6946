package titlesapi

import (
	"context"
	"sync"
	"time"

	"library/internal/auth"
	"library/internal/books"
	"library/internal/titles"
)

// Copies reads a title's copies, each a book (books.Service is one).
type Copies interface {
	Get(ctx context.Context, bookID string) (books.Book, int64, error)
}

// copyView is a copy as GET /titles/{titleId} shows it to one caller: its status, its due time
// while lent, until when it waits on the hold shelf while held; the member it is lent to or held
// for to staff only, and to a signed-in member whether that is them.
type copyView struct {
	ID        string     `json:"id"`
	Barcode   *string    `json:"barcode"`
	Status    string     `json:"status"`
	DueAt     *time.Time `json:"dueAt"`
	HeldUntil *time.Time `json:"heldUntil"`
	MemberID  string     `json:"memberId,omitempty"`
	Mine      *bool      `json:"mine,omitempty"`
}

// copyCounts are how many copies a title has, how many of them are on the shelf for anyone,
// and how many holds wait for one: those in the title's queue, and those placed on a copy before
// books were copies of titles that wait still.
type copyCounts struct {
	Total        int `json:"total"`
	Available    int `json:"available"`
	HoldsWaiting int `json:"holdsWaiting"`
}

// copiesFor shows a title's copies, and their counts, to the caller of access.
func copiesFor(copies []books.Book, access auth.Access) ([]copyView, copyCounts) {
	views := make([]copyView, len(copies))
	counts := copyCounts{Total: len(copies)}
	for i, b := range copies {
		v := copyView{ID: b.ID, Barcode: given(b.Barcode), Status: b.Status()}
		member := ""
		switch {
		case b.Loan != nil:
			v.DueAt, member = &b.Loan.DueAt, b.Loan.MemberID
		case b.Held != nil:
			v.HeldUntil, member = &b.Held.Until, b.Held.MemberID
		case b.Missing != nil: // lost or claimed returned: on no shelf
		default:
			counts.Available++
		}
		if member != "" {
			switch {
			case access.Staff():
				v.MemberID = member
			case access.Caller.SignedIn():
				mine := access.Caller.MemberID != "" && member == access.Caller.MemberID
				v.Mine = &mine
			}
		}
		counts.HoldsWaiting += len(b.Queue())
		views[i] = v
	}
	return views, counts
}

// maxReads bounds the copies of one title read at once.
const maxReads = 8

// readCopies reads each of a title's copies from its own stream (a kept one from memory, after
// what came since), up to maxReads at once, in the title's order.
func readCopies(ctx context.Context, from Copies, copies []titles.Copy) ([]books.Book, error) {
	out := make([]books.Book, len(copies))
	failed := make([]error, len(copies))
	slots := make(chan struct{}, maxReads)
	var wg sync.WaitGroup
	for i, c := range copies {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			out[i], _, failed[i] = from.Get(ctx, c.BookID)
		})
	}
	wg.Wait()
	for _, err := range failed {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
