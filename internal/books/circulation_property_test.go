package books_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
)

// TestCirculationProperties runs random sequences of holds placed and cancelled, loans made
// and returned, holds left to expire, fines charged and paid, on two books and three members,
// through the services as the service runs them (a loan written to the book and the account in
// one append), and checks after every step that:
//   - (a) a book has at most one holder, and is never on loan and on the shelf at once;
//   - (b) its queue is in the order members joined it, each once, the holder not in it;
//   - (c) the shelf goes to the first in line, and nobody but the holder borrows a held book;
//   - (d) no member borrows beyond MAX_LOANS, nor while owing more than BLOCK_AT.
func TestCirculationProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		clock := nowUTC
		now := func() time.Time { return clock }
		store := eventstore.NewMemory(now)
		limits := accounts.Limits{MaxLoans: 1, BlockAt: 500}
		members := accounts.NewService(store, aggregate.Options{}).Limit(limits)
		policy := books.Policy{LoanPeriod: loanPeriod, MaxRenewals: 2, Holds: books.HoldPolicy{MaxQueue: 2, Pickup: pickup}}
		lib := books.NewService(store, aggregate.Options{}, now, policy, members)
		ids, people := []string{"b1", "b2"}, []string{"m1", "m2", "m3"}
		queues := map[string][]string{}
		for _, id := range ids {
			_, err := lib.Add(ctx, books.AddBook{ID: id, Title: "T", Author: "A"}, aggregate.Origin{})
			if err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range people {
			if _, err := members.SetContact(ctx, m, accounts.SetContact{Name: m}, aggregate.Origin{}); err != nil {
				t.Fatal(err)
			}
		}
		loan := 0
		for range rapid.IntRange(1, 80).Draw(t, "steps") {
			id, m := rapid.SampledFrom(ids).Draw(t, "book"), rapid.SampledFrom(people).Draw(t, "member")
			before, _, err := lib.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			account, _, err := members.Get(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			var res aggregate.Result
			switch op := rapid.IntRange(0, 7).Draw(t, "op"); op {
			case 0:
				res, err = lib.PlaceHold(ctx, id, books.PlaceHold{MemberID: m}, aggregate.Origin{})
				if err == nil {
					queues[id] = append(queues[id], m)
				}
			case 1:
				res, err = lib.CancelHold(ctx, id, books.CancelHold{MemberID: m}, aggregate.Origin{})
				if err == nil {
					queues[id] = slices.DeleteFunc(queues[id], func(x string) bool { return x == m })
				}
			case 2:
				loan++
				res, err = lib.Lend(ctx, id, books.LendBook{LoanID: fmt.Sprintf("l%d", loan), MemberID: m}, aggregate.Origin{})
				if err == nil {
					if before.Held != nil && before.Held.MemberID != m {
						t.Fatalf("(c) %s lent to %s while held for %s", id, m, before.Held.MemberID)
					}
					if account.OnLoan() >= limits.MaxLoans || account.Balance > limits.BlockAt {
						t.Fatalf("(d) %s borrowed with %d out and %d owed", m, account.OnLoan(), account.Balance)
					}
				}
			case 3:
				if before.Loan != nil {
					res, err = lib.Return(ctx, id, books.ReturnBook{LoanID: before.Loan.LoanID}, aggregate.Origin{})
				}
			case 4:
				if before.Held != nil {
					clock = before.Held.Until
					res, err = lib.ExpireHold(ctx, id, books.ExpireHold{MemberID: before.Held.MemberID, Until: before.Held.Until}, aggregate.Origin{})
				}
			case 5:
				_, err = members.ChargeFine(ctx, m, accounts.ChargeFine{Amount: 300, Reason: "r"}, aggregate.Origin{})
			case 6:
				_, err = members.Pay(ctx, m, accounts.Pay{Amount: 300}, aggregate.Origin{CommandID: fmt.Sprintf("p%d", loan)})
			case 7:
				clock = clock.Add(time.Hour)
			}
			if err != nil && errs.CodeOf(err) == errs.Internal {
				t.Fatal(err)
			}
			for _, e := range res.Events {
				if held, ok := e.Data.(books.BookHeld); ok {
					q := queues[id]
					if len(q) == 0 || q[0] != held.MemberID {
						t.Fatalf("(c) %s held for %s, but the queue was %v", id, held.MemberID, q)
					}
					queues[id] = q[1:]
				}
			}
			for _, b := range ids {
				book, _, err := lib.Get(ctx, b)
				if err != nil {
					t.Fatal(err)
				}
				if book.Held != nil && book.Loan != nil {
					t.Fatalf("(a) %s is on loan to %s and held for %s", b, book.Loan.MemberID, book.Held.MemberID)
				}
				if !slices.Equal(book.Queue(), queues[b]) {
					t.Fatalf("(b) %s's queue is %v, members joined as %v", b, book.Queue(), queues[b])
				}
				if book.Held != nil && slices.Contains(book.Queue(), book.Held.MemberID) {
					t.Fatalf("(b) %s's holder %s is in its queue", b, book.Held.MemberID)
				}
			}
		}
	})
}
