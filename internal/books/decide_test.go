package books_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/books"
	"library/internal/errs"
)

// The fixed clock of these tests: not in UTC and not on a whole second, so that the tests see
// the conversion to UTC and the truncation to the second.
var (
	now        = time.Date(2026, 3, 10, 15, 30, 15, 987654321, time.FixedZone("CET", 3600))
	nowUTC     = time.Date(2026, 3, 10, 14, 30, 15, 0, time.UTC) // now, in UTC, to the second
	loanPeriod = 14 * 24 * time.Hour
	pickup     = 72 * time.Hour
)

// Events used as "given" below.
var (
	added = books.BookAdded{ID: "b1", Title: "Dune", Author: "Frank Herbert"}

	// lentL1 lends b1 to m1 under l1, due ten days ago.
	lentL1 = books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: nowUTC.Add(-24 * 24 * time.Hour), DueAt: nowUTC.Add(-10 * 24 * time.Hour)}
	// returnedL1 ends the loan l1.
	returnedL1 = books.BookReturned{LoanID: "l1", MemberID: "m1", ReturnedAt: nowUTC.Add(-time.Hour), DaysLate: 9}
)

// lentDue lends b1 to m1 under l1, due at due.
func lentDue(due time.Time) books.BookLent {
	return books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: due.Add(-loanPeriod), DueAt: due}
}

// fold is the state after the given events.
func fold(given ...books.Event) books.Book {
	b := books.NewBook()
	for _, e := range given {
		b = books.Apply(b, e)
	}
	return b
}

// decideCase is "given events, when a command, then events or an error code".
type decideCase struct {
	name  string
	given []books.Event
	when  func(books.Book) ([]books.Event, error)
	then  []books.Event // nil: no events
	err   errs.Code     // "": no error
}

func run(t *testing.T, tests []decideCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.when(fold(tt.given...))
			if tt.err != "" {
				require.Error(t, err)
				require.True(t, errs.Is(err, tt.err), "want %s, got %v", tt.err, err)
				require.Empty(t, got)
				return
			}
			require.NoError(t, err)
			if tt.then == nil {
				require.Empty(t, got, "no events")
				return
			}
			require.Equal(t, tt.then, got)
		})
	}
}

// The "when" steps validate the command, then decide it, as the service does.

func add(c books.AddBook) func(books.Book) ([]books.Event, error) {
	return func(b books.Book) ([]books.Event, error) {
		if err := c.Validate(); err != nil {
			return nil, err
		}
		return c.Decide(b)
	}
}

func lend(c books.LendBook) func(books.Book) ([]books.Event, error) {
	return func(b books.Book) ([]books.Event, error) {
		if err := c.Validate(); err != nil {
			return nil, err
		}
		return c.Decide(b, now, loanPeriod)
	}
}

func returnAt(c books.ReturnBook, at time.Time) func(books.Book) ([]books.Event, error) {
	return func(b books.Book) ([]books.Event, error) {
		if err := c.Validate(); err != nil {
			return nil, err
		}
		return c.Decide(b, at, pickup)
	}
}

// TestAddBook proves that a book is added once, and that id, title and author are validated.
func TestAddBook(t *testing.T) {
	t.Parallel()
	ok := books.AddBook{ID: "b1", Title: "Dune", Author: "Frank Herbert"}
	run(t, []decideCase{
		{name: "added once", when: add(ok), then: []books.Event{added}},
		{name: "added twice", given: []books.Event{added}, when: add(ok), err: errs.BookAlreadyExists},
		{name: "added twice, other title", given: []books.Event{added}, when: add(books.AddBook{ID: "b1", Title: "Other", Author: "X"}), err: errs.BookAlreadyExists},
		{name: "invalid id", when: add(books.AddBook{ID: "b/1", Title: "Dune", Author: "F"}), err: errs.InvalidRequest},
		{name: "empty id", when: add(books.AddBook{ID: "", Title: "Dune", Author: "F"}), err: errs.InvalidRequest},
		{name: "empty title", when: add(books.AddBook{ID: "b1", Title: "", Author: "F"}), err: errs.InvalidRequest},
		{name: "blank title", when: add(books.AddBook{ID: "b1", Title: "  ", Author: "F"}), err: errs.InvalidRequest},
		{name: "title with newline", when: add(books.AddBook{ID: "b1", Title: "Dune\r\nBcc: x", Author: "F"}), err: errs.InvalidRequest},
		{name: "title too long", when: add(books.AddBook{ID: "b1", Title: strings.Repeat("é", books.MaxTitleLength+1), Author: "F"}), err: errs.InvalidRequest},
		{name: "title at the limit", when: add(books.AddBook{ID: "b1", Title: strings.Repeat("é", books.MaxTitleLength), Author: "F"}),
			then: []books.Event{books.BookAdded{ID: "b1", Title: strings.Repeat("é", books.MaxTitleLength), Author: "F"}}},
		{name: "empty author", when: add(books.AddBook{ID: "b1", Title: "Dune", Author: ""}), err: errs.InvalidRequest},
		{name: "author with tab", when: add(books.AddBook{ID: "b1", Title: "Dune", Author: "F\tH"}), err: errs.InvalidRequest},
		{name: "author too long", when: add(books.AddBook{ID: "b1", Title: "Dune", Author: strings.Repeat("a", books.MaxAuthorLength+1)}), err: errs.InvalidRequest},
		{name: "invalid input beats already exists", given: []books.Event{added}, when: add(books.AddBook{ID: "b1", Title: "", Author: "F"}), err: errs.InvalidRequest},
	})
}

// TestLendBook proves lending: the default and explicit due times, and that a loan id makes
// lending idempotent without letting a second loan or a second member in.
func TestLendBook(t *testing.T) {
	t.Parallel()
	explicitDue := time.Date(2026, 4, 1, 12, 0, 0, 500, time.FixedZone("EST", -5*3600))
	at := func(t time.Time) *time.Time { return &t }
	run(t, []decideCase{
		{name: "missing book", when: lend(books.LendBook{LoanID: "l1", MemberID: "m1"}), err: errs.NotFound},
		{name: "invalid loan id", given: []books.Event{added}, when: lend(books.LendBook{LoanID: "-l1", MemberID: "m1"}), err: errs.InvalidRequest},
		{name: "empty loan id", given: []books.Event{added}, when: lend(books.LendBook{LoanID: "", MemberID: "m1"}), err: errs.InvalidRequest},
		{name: "invalid member id", given: []books.Event{added}, when: lend(books.LendBook{LoanID: "l1", MemberID: "m 1"}), err: errs.InvalidRequest},
		{name: "invalid id on a missing book", when: lend(books.LendBook{LoanID: "l%1", MemberID: "m1"}), err: errs.InvalidRequest},
		{
			name: "default due time", given: []books.Event{added},
			when: lend(books.LendBook{LoanID: "l1", MemberID: "m1"}),
			then: []books.Event{books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: nowUTC, DueAt: nowUTC.Add(loanPeriod)}},
		},
		{
			name: "explicit due time, in UTC", given: []books.Event{added},
			when: lend(books.LendBook{LoanID: "l1", MemberID: "m1", DueAt: at(explicitDue)}),
			then: []books.Event{books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: nowUTC, DueAt: explicitDue.UTC()}},
		},
		{name: "again, same loan, same member", given: []books.Event{added, lentL1}, when: lend(books.LendBook{LoanID: "l1", MemberID: "m1"})},
		{name: "again, same loan, same member, other due time", given: []books.Event{added, lentL1}, when: lend(books.LendBook{LoanID: "l1", MemberID: "m1", DueAt: at(explicitDue)})},
		{name: "due before the lending time", given: []books.Event{added}, when: lend(books.LendBook{LoanID: "l1", MemberID: "m1", DueAt: at(nowUTC.Add(-time.Hour))}), err: errs.InvalidRequest},
		{name: "due at the lending time", given: []books.Event{added}, when: lend(books.LendBook{LoanID: "l1", MemberID: "m1", DueAt: at(nowUTC)}), err: errs.InvalidRequest},
		{name: "due in the year 1", given: []books.Event{added}, when: lend(books.LendBook{LoanID: "l1", MemberID: "m1", DueAt: at(time.Time{})}), err: errs.InvalidRequest},
		{
			name: "due at the longest loan period", given: []books.Event{added},
			when: lend(books.LendBook{LoanID: "l1", MemberID: "m1", DueAt: at(nowUTC.Add(books.MaxLoanPeriod))}),
			then: []books.Event{books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: nowUTC, DueAt: nowUTC.Add(books.MaxLoanPeriod)}},
		},
		{name: "due beyond the longest loan period", given: []books.Event{added}, when: lend(books.LendBook{LoanID: "l1", MemberID: "m1", DueAt: at(nowUTC.Add(books.MaxLoanPeriod + time.Second))}), err: errs.InvalidRequest},
		{name: "same loan, other member", given: []books.Event{added, lentL1}, when: lend(books.LendBook{LoanID: "l1", MemberID: "m2"}), err: errs.BookAlreadyLent},
		{name: "other loan while lent", given: []books.Event{added, lentL1}, when: lend(books.LendBook{LoanID: "l2", MemberID: "m1"}), err: errs.BookAlreadyLent},
		{name: "other loan, other member, while lent", given: []books.Event{added, lentL1}, when: lend(books.LendBook{LoanID: "l2", MemberID: "m2"}), err: errs.BookAlreadyLent},
		{name: "loan already lent and returned", given: []books.Event{added, lentL1, returnedL1}, when: lend(books.LendBook{LoanID: "l1", MemberID: "m1"})},
		{
			name: "new loan after a return", given: []books.Event{added, lentL1, returnedL1},
			when: lend(books.LendBook{LoanID: "l2", MemberID: "m2"}),
			then: []books.Event{books.BookLent{LoanID: "l2", MemberID: "m2", LentAt: nowUTC, DueAt: nowUTC.Add(loanPeriod)}},
		},
		{
			name: "old returned loan while lent under another", given: []books.Event{added, lentL1, returnedL1, books.BookLent{LoanID: "l2", MemberID: "m2", LentAt: nowUTC, DueAt: nowUTC}},
			when: lend(books.LendBook{LoanID: "l1", MemberID: "m1"}),
		},
	})
}

// TestLendBookTimes proves that the recorded times are in UTC and whole seconds.
func TestLendBookTimes(t *testing.T) {
	t.Parallel()
	got, err := books.LendBook{LoanID: "l1", MemberID: "m1"}.Decide(fold(added), now, loanPeriod)
	require.NoError(t, err)
	require.Len(t, got, 1)
	lent := got[0].(books.BookLent)
	require.Equal(t, time.UTC, lent.LentAt.Location())
	require.Equal(t, time.UTC, lent.DueAt.Location())
	require.Zero(t, lent.LentAt.Nanosecond())
	require.True(t, lent.LentAt.Equal(now.Truncate(time.Second)))
	require.True(t, lent.DueAt.Equal(now.Truncate(time.Second).Add(loanPeriod)))
}

// TestReturnBook proves returning: unknown books and loans are refused, a repeat records
// nothing, and the return carries the member and the whole days late.
func TestReturnBook(t *testing.T) {
	t.Parallel()
	// Every return happens at now, which is nowUTC once truncated.
	returned := func(daysLate int) []books.Event {
		return []books.Event{books.BookReturned{LoanID: "l1", MemberID: "m1", ReturnedAt: nowUTC, DaysLate: daysLate}}
	}
	ret := returnAt(books.ReturnBook{LoanID: "l1"}, now)
	late := func(d time.Duration) []books.Event { return []books.Event{added, lentDue(nowUTC.Add(-d))} }
	run(t, []decideCase{
		{name: "missing book", when: ret, err: errs.NotFound},
		{name: "invalid loan id", given: []books.Event{added, lentL1}, when: returnAt(books.ReturnBook{LoanID: "l/1"}, now), err: errs.InvalidRequest},
		{name: "empty loan id", given: []books.Event{added, lentL1}, when: returnAt(books.ReturnBook{LoanID: ""}, now), err: errs.InvalidRequest},
		{name: "book never lent", given: []books.Event{added}, when: ret, err: errs.LoanMismatch},
		{name: "unknown loan while lent", given: []books.Event{added, lentL1}, when: returnAt(books.ReturnBook{LoanID: "l2"}, now), err: errs.LoanMismatch},
		{name: "unknown loan after a return", given: []books.Event{added, lentL1, returnedL1}, when: returnAt(books.ReturnBook{LoanID: "l2"}, now), err: errs.LoanMismatch},
		{name: "loan already returned", given: []books.Event{added, lentL1, returnedL1}, when: ret},
		{
			name: "old loan already returned, book lent again", when: ret,
			given: []books.Event{added, lentL1, returnedL1, books.BookLent{LoanID: "l2", MemberID: "m2", LentAt: nowUTC, DueAt: nowUTC}},
		},
		{name: "on time", given: late(-time.Hour), when: ret, then: returned(0)},
		{name: "exactly at the due time", given: late(0), when: ret, then: returned(0)},
		{name: "23h59m late", given: late(23*time.Hour + 59*time.Minute), when: ret, then: returned(0)},
		{name: "24h late", given: late(24 * time.Hour), when: ret, then: returned(1)},
		{name: "10 days 5 hours late", given: late(10*24*time.Hour + 5*time.Hour), when: ret, then: returned(10)},
		// daysLate agrees with the recorded (truncated) returnedAt: 23h59m59.5s, not 24h0m0.49s.
		{name: "counted from the recorded return time", given: late(24*time.Hour - 500*time.Millisecond), when: ret, then: returned(0)},
		{name: "the current loan", given: late(time.Hour), when: returnAt(books.ReturnBook{Current: true}, now), then: returned(0)},
		{name: "the current loan of a book on the shelf", given: []books.Event{added, lentL1, returnedL1}, when: returnAt(books.ReturnBook{Current: true}, now)},
		{name: "the current loan of a book never lent", given: []books.Event{added}, when: returnAt(books.ReturnBook{Current: true}, now)},
		{name: "the current loan and a loan id", given: []books.Event{added, lentL1}, when: returnAt(books.ReturnBook{LoanID: "l1", Current: true}, now), err: errs.InvalidRequest},
		{
			name: "carries the member of the loan", when: returnAt(books.ReturnBook{LoanID: "l7"}, now),
			given: []books.Event{added, books.BookLent{LoanID: "l7", MemberID: "member:7@x", LentAt: nowUTC, DueAt: nowUTC.Add(time.Hour)}},
			then:  []books.Event{books.BookReturned{LoanID: "l7", MemberID: "member:7@x", ReturnedAt: nowUTC, DaysLate: 0}},
		},
	})
}

// TestDaysLate proves that only whole days after the due time count.
func TestDaysLate(t *testing.T) {
	t.Parallel()
	due := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	tests := []struct {
		after time.Duration
		want  int
	}{
		{-30 * 24 * time.Hour, 0},
		{-time.Nanosecond, 0},
		{0, 0},
		{time.Nanosecond, 0},
		{23*time.Hour + 59*time.Minute + 59*time.Second, 0},
		{24 * time.Hour, 1},
		{48*time.Hour - time.Nanosecond, 1},
		{48 * time.Hour, 2},
		{10*24*time.Hour + 5*time.Hour, 10},
		{365 * 24 * time.Hour, 365},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, books.DaysLate(due, due.Add(tt.after)), "returned %v after the due time", tt.after)
	}
	// The zone of either time does not matter.
	require.Equal(t, 1, books.DaysLate(due.In(time.FixedZone("X", 5*3600)), due.Add(25*time.Hour)))
}

// TestStatus proves that a book is "lent" exactly while it has a current loan.
func TestStatus(t *testing.T) {
	t.Parallel()
	require.Equal(t, "available", books.NewBook().Status())
	require.Equal(t, "available", fold(added).Status())
	lent := fold(added, lentL1)
	require.Equal(t, "lent", lent.Status())
	require.Equal(t, &books.Loan{LoanID: "l1", MemberID: "m1", LentAt: lentL1.LentAt, DueAt: lentL1.DueAt}, lent.Loan)
	back := fold(added, lentL1, returnedL1)
	require.Equal(t, "available", back.Status())
	require.Nil(t, back.Loan)
	require.True(t, back.HadLoan("l1"))
	require.False(t, back.HadLoan("l2"))
}
