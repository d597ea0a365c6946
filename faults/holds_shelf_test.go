//go:build faults

package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"library/internal/books"
	"library/internal/notifications"
	"library/internal/testkit/smtptest"
)

// shelfHistory is a book's queue and hold shelf, folded from its stream in the log.
type shelfHistory struct {
	placed             []string    // HoldPlaced, in log order
	held               []shelfHold // BookHeld, in log order
	expired, fulfilled map[string]int
	cancelled          []string
	lateBy             map[string]time.Duration // how long after its hold's until each HoldExpired was recorded
	latestExpiry       time.Duration            // the longest of those
	broken             []string                 // what broke the rules: two holders, a lend to someone else, …
}

type shelfHold struct {
	member   string
	until    time.Time
	position int64
}

// foldShelf reads the book's stream from the events table, with the holds placed in its
// title's queue (the title its title and author make), in the log's order, and folds them.
func foldShelf(t *testing.T, s *system, bookID string) shelfHistory {
	t.Helper()
	rows, err := s.pool.Query(context.Background(),
		`SELECT position, type, data, recorded_at FROM events
		 WHERE stream_id = $1 OR (stream_id = $2 AND type = 'TitleHoldPlaced') ORDER BY position`,
		"book-"+bookID, "title-"+books.TitleIDOf(shelfTitle, "A"))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	f := shelfFold{shelfHistory: shelfHistory{expired: map[string]int{}, fulfilled: map[string]int{}, lateBy: map[string]time.Duration{}}}
	for rows.Next() {
		var e shelfEvent
		var data []byte
		if err := rows.Scan(&e.position, &e.typ, &data, &e.recorded); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &e); err != nil {
			t.Fatalf("%s at %d: %v", e.typ, e.position, err)
		}
		f.apply(e)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return f.shelfHistory
}

// shelfEvent is what the fold reads of an event of the book.
type shelfEvent struct {
	position int64
	typ      string
	recorded time.Time
	MemberID string    `json:"memberId"`
	Until    time.Time `json:"until"`
}

// shelfFold is the history so far, with whom the book is held for and lent to.
type shelfFold struct {
	shelfHistory
	holder *shelfHold
	lentTo string
}

func (f *shelfFold) apply(e shelfEvent) {
	broke := func(format string, args ...any) {
		f.broken = append(f.broken, fmt.Sprintf("%s at %d: ", e.typ, e.position)+fmt.Sprintf(format, args...))
	}
	heldFor := func(m string) bool { return f.holder != nil && f.holder.member == m }
	switch e.typ {
	case "HoldPlaced", "TitleHoldPlaced":
		f.placed = append(f.placed, e.MemberID)
	case "BookHeld":
		if f.holder != nil || f.lentTo != "" {
			broke("held for %s while held for %+v, lent to %q", e.MemberID, f.holder, f.lentTo)
		}
		f.holder = &shelfHold{member: e.MemberID, until: e.Until, position: e.position}
		f.held = append(f.held, *f.holder)
	case "BookLent":
		if f.lentTo != "" || (f.holder != nil && !heldFor(e.MemberID)) {
			broke("lent to %s while lent to %q, held for %+v", e.MemberID, f.lentTo, f.holder)
		}
		f.lentTo = e.MemberID
	case "BookReturned":
		f.lentTo = ""
	case "HoldFulfilled":
		if !heldFor(e.MemberID) || f.lentTo != e.MemberID {
			broke("fulfilled for %s, lent to %q, held for %+v", e.MemberID, f.lentTo, f.holder)
		}
		f.fulfilled[e.MemberID]++
		f.holder = nil
	case "HoldExpired":
		if !heldFor(e.MemberID) || !f.holder.until.Equal(e.Until) {
			broke("expired %s's hold until %s, held for %+v", e.MemberID, e.Until, f.holder)
		}
		if e.recorded.Before(e.Until) {
			broke("recorded at %s, before the hold's until %s", e.recorded, e.Until)
		}
		f.lateBy[e.MemberID] = e.recorded.Sub(e.Until)
		f.latestExpiry = max(f.latestExpiry, f.lateBy[e.MemberID])
		f.expired[e.MemberID]++
		f.holder = nil
	case "HoldCancelled":
		f.cancelled = append(f.cancelled, e.MemberID)
	}
}

// check compares the history with the queue the test made: the book held for each member
// once, in the order they asked; every non-picker's hold expired and every picker's fulfilled,
// once; nothing cancelled, and no rule broken.
func (h shelfHistory) check(t *testing.T, queue []string) {
	t.Helper()
	if !slices.Equal(h.placed, queue) {
		t.Errorf("holds placed in the log: %v, want %v", h.placed, queue)
	}
	var heldFor []string
	for _, x := range h.held {
		heldFor = append(heldFor, x.member)
	}
	if !slices.Equal(heldFor, h.placed) {
		t.Errorf("the book was held for %v, want the queue's order %v", heldFor, h.placed)
	}
	for _, m := range queue {
		wantExpired, wantFulfilled := 1, 0
		if picksUp(m) {
			wantExpired, wantFulfilled = 0, 1
		}
		if h.expired[m] != wantExpired || h.fulfilled[m] != wantFulfilled {
			t.Errorf("%s: %d HoldExpired, %d HoldFulfilled; want %d and %d", m, h.expired[m], h.fulfilled[m], wantExpired, wantFulfilled)
		}
	}
	if len(h.cancelled) > 0 {
		t.Errorf("holds cancelled, with no one cancelling: %v", h.cancelled)
	}
	if len(h.broken) > 0 {
		t.Errorf("the book's stream breaks the shelf's rules:\n%s", strings.Join(h.broken, "\n"))
	}
}

// pickupFigures are what the SMTP server got of the pickup emails.
type pickupFigures struct{ total, duplicates int }

// pickupsByMember sorts the pickup emails for the shelf's book by member, in the order the
// server accepted them.
func pickupsByMember(msgs []smtptest.Message) map[string][]smtptest.Message {
	out := map[string][]smtptest.Message{}
	for _, m := range msgs {
		if m.Subject != "Ready for pickup: "+shelfTitle || len(m.To) != 1 {
			continue
		}
		member := strings.TrimSuffix(m.To[0], "@example.org")
		out[member] = append(out[member], m)
	}
	return out
}

// checkPickupEmails waits until each member the book was held for has their pickup email, and
// checks that the emails came in the order of the holds, each under the Message-ID of its
// BookHeld; that an email sent twice was sent with the same Message-ID, after a kill of the
// outbox's holder, at most one per kill (one book has one pickup email in flight at a time).
func checkPickupEmails(t *testing.T, s *system, h shelfHistory, kills []time.Time) pickupFigures {
	t.Helper()
	byMember := waitForPickups(t, s, h, 30*time.Second)
	var f pickupFigures
	var all []smtptest.Message
	for _, x := range h.held {
		msgs := byMember[x.member]
		f.total += len(msgs)
		f.duplicates += max(0, len(msgs)-1)
		all = append(all, msgs...)
		for _, m := range msgs {
			if p, ok := notifications.PositionOf(m.MessageID); !ok || p != x.position || m.MessageID != msgs[0].MessageID {
				t.Errorf("%s's pickup email %s: want the Message-ID of their BookHeld at %d, the same each time", x.member, m.MessageID, x.position)
			}
		}
	}
	firsts := make([]smtptest.Message, 0, len(h.held))
	for _, x := range h.held {
		if msgs := byMember[x.member]; len(msgs) > 0 {
			firsts = append(firsts, msgs[0])
		}
	}
	if !slices.IsSortedFunc(firsts, func(a, b smtptest.Message) int { return a.Received.Compare(b.Received) }) {
		t.Errorf("the pickup emails did not come in the order the book was held")
	}
	slices.SortStableFunc(all, func(a, b smtptest.Message) int { return a.Received.Compare(b.Received) })
	perKill, unexplained := duplicatesPerKill(all, kills)
	if unexplained > 0 || slices.Max(append(perKill, 0)) > 1 {
		t.Errorf("pickup emails sent twice: %v after each kill of the outbox's holder, %d with no kill before", perKill, unexplained)
	}
	return f
}

// waitForPickups waits until each member the book was held for has a pickup email, and
// returns the pickup emails by member.
func waitForPickups(t *testing.T, s *system, h shelfHistory, within time.Duration) map[string][]smtptest.Message {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		byMember := pickupsByMember(s.smtp.Messages())
		missing := slices.DeleteFunc(slices.Clone(h.held), func(x shelfHold) bool { return len(byMember[x.member]) > 0 })
		if len(missing) == 0 {
			return byMember
		}
		if time.Now().After(deadline) {
			t.Errorf("%d members the book was held for got no pickup email after %s, the first %s", len(missing), within, missing[0].member)
			return byMember
		}
		time.Sleep(50 * time.Millisecond) // polling for the outbox
	}
}

// askingClient is a client not in the queue that asks to borrow the book, again and again.
type askingClient struct {
	stopped, done chan struct{}
	halt          func()
	refusals      map[string]int // by the refusal's code
	retried       int            // attempts that failed (a replica killed) and were sent again
	wrong         []string
}

// askWithoutHold starts a client that asks to borrow the shelf's book for a member not in its
// queue, through a random replica each time, and again after an error or a 5xx, until stopped
// (at the latest when the test ends).
func (s *system) askWithoutHold(t *testing.T) *askingClient {
	c := &askingClient{stopped: make(chan struct{}), done: make(chan struct{}), refusals: map[string]int{}}
	c.halt = sync.OnceFunc(func() {
		close(c.stopped)
		<-c.done
		if len(c.wrong) > 0 {
			t.Errorf("a member not in line asked for the book %d times and was not refused: %v", len(c.wrong), c.wrong[:min(3, len(c.wrong))])
		}
	})
	t.Cleanup(c.halt)
	go func() {
		defer close(c.done)
		for {
			select {
			case <-c.stopped:
				return
			default:
			}
			r := s.replicas[rand.IntN(len(s.replicas))]
			a, err := s.call(r, http.MethodPost, "/books/"+shelfBook+"/loans", `{"loanId":"interloper-loan","memberId":"interloper"}`)
			code := problemCode(a.Body)
			switch {
			case err != nil || a.Status >= 500:
				c.retried++
			case a.Status == http.StatusConflict && (code == "BookOnHold" || code == "BookAlreadyLent"):
				c.refusals[code]++
			default:
				c.wrong = append(c.wrong, fmt.Sprintf("%d %s", a.Status, a.Body))
			}
			time.Sleep(20 * time.Millisecond) // a client's pace
		}
	}()
	return c
}

// stop stops the client, and fails the test if it was ever answered other than with a
// refusal (as it does if the test ends first).
func (c *askingClient) stop() *askingClient {
	c.halt()
	return c
}
