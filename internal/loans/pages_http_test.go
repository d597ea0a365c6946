package loans_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// readAllPages reads every page of a query, following next, and returns the loans in the order
// read. Every page but the last is full and has a next; no page after the first is empty.
func readAllPages(t *testing.T, a *apitest.API, query url.Values, limit int, headers ...string) []currentLoan {
	t.Helper()
	query.Set("limit", fmt.Sprint(limit))
	query.Del("cursor")
	var loans []currentLoan
	for pages := 1; ; pages++ {
		p := listLoans(t, a, query, headers...)
		if pages > 1 {
			require.NotEmpty(t, p.Loans, "a page after a next")
		}
		loans = append(loans, p.Loans...)
		if p.Next == nil {
			return loans
		}
		require.Len(t, p.Loans, limit, "a page with a next is full")
		query.Set("cursor", *p.Next)
		require.Less(t, pages, 1000, "paging does not end")
	}
}

func keysOf(loans []currentLoan) []string {
	keys := make([]string, len(loans))
	for i, l := range loans {
		keys[i] = l.DueAt + " " + l.BookID + " " + l.LoanID
	}
	return keys
}

// Paging: 100 loans by default, at most 1000; every loan once, in (dueAt, bookId, loanId)
// order, whatever the page size, with memberId and overdue too; next null on the last page,
// also on one that ends at the last loan. Many loans share a due time, so the order within one
// is the book id's, byte by byte.
func TestHTTPLoanPages(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, apitest.FastBackground(app.Config{MaxLoans: 1000}), func(t *testing.T, a *apitest.API) {
		const n = 123
		now := a.Clock.Now()
		members := []string{"alice", "bob", "carol"}
		var last apitest.Result
		for _, i := range rand.Perm(n) {
			book := fmt.Sprintf("b%03d", i)
			if i%2 == 1 {
				book = fmt.Sprintf("B%03d", i) // capitals sort before small letters
			}
			addTitled(t, a, book, "Book "+book)
			// Seven due times, some of them past by the end, and some to the microsecond.
			due := now.Add(time.Duration(i%7)*day + time.Duration(i%3)*time.Microsecond + time.Hour)
			last = lendUntil(t, a, book, fmt.Sprintf("loan-%d", i), members[i%3], due)
		}
		caughtUp(t, a, last.Position)

		all := readAllPages(t, a, url.Values{}, n+1)
		require.Len(t, all, n)
		keys := keysOf(all)
		assert.True(t, slices.IsSortedFunc(all, func(x, y currentLoan) int {
			return compareLoans(t, x, y)
		}), "ordered by due time, book id, loan id: %v", keys)

		t.Run("100 by default", func(t *testing.T) {
			p := listLoans(t, a, nil)
			assert.Equal(t, keys[:100], keysOf(p.Loans))
			require.NotNil(t, p.Next)
			assert.Len(t, listLoans(t, a, url.Values{"limit": {"1000"}}).Loans, n)
		})
		t.Run("every loan once, in order, whatever the page size", func(t *testing.T) {
			for _, limit := range []int{1, 7, 50, n - 1, n, 1000} {
				assert.Equal(t, keys, keysOf(readAllPages(t, a, url.Values{}, limit)), "limit %d", limit)
			}
		})
		t.Run("next is null on the last page", func(t *testing.T) {
			p := listLoans(t, a, url.Values{"limit": {fmt.Sprint(n)}})
			assert.Len(t, p.Loans, n)
			assert.Nil(t, p.Next, "a page that ends at the last loan is the last")
		})
		a.Clock.Advance(3 * day)
		clock := a.Clock.Now()
		t.Run("filtered", func(t *testing.T) {
			for _, member := range members {
				var want []string
				for _, l := range all {
					if l.MemberID == member {
						want = append(want, l.DueAt+" "+l.BookID+" "+l.LoanID)
					}
				}
				for _, limit := range []int{1, 6, 100} {
					got := readAllPages(t, a, url.Values{"memberId": {member}}, limit)
					assert.Equal(t, want, keysOf(got), "%s, limit %d", member, limit)
				}
				assert.Equal(t, want, keysOf(loansOf(t, a, member).Loans), "the member's own list")
			}
			var overdue []string
			for _, l := range all {
				due, err := time.Parse(time.RFC3339Nano, l.DueAt)
				require.NoError(t, err)
				if due.Before(clock) {
					overdue = append(overdue, l.DueAt+" "+l.BookID+" "+l.LoanID)
				}
			}
			require.NotEmpty(t, overdue)
			require.Less(t, len(overdue), n)
			for _, limit := range []int{1, 9, 100} {
				assert.Equal(t, overdue, keysOf(readAllPages(t, a, url.Values{"overdue": {"true"}}, limit)), "limit %d", limit)
			}
		})
		t.Run("a loan returned between pages is not shown, the rest once", func(t *testing.T) {
			first := listLoans(t, a, url.Values{"limit": {"10"}})
			require.NotNil(t, first.Next)
			gone := all[15]
			back := giveBack(t, a, gone.BookID, gone.LoanID)
			caughtUp(t, a, back.Position)
			rest := readAllPagesFrom(t, a, *first.Next, 10)
			want := slices.Concat(keys[10:15], keys[16:])
			assert.Equal(t, want, keysOf(rest))
		})
	})
}

// readAllPagesFrom reads the pages from cursor on.
func readAllPagesFrom(t *testing.T, a *apitest.API, cursor string, limit int) []currentLoan {
	t.Helper()
	var loans []currentLoan
	query := url.Values{"limit": {fmt.Sprint(limit)}, "cursor": {cursor}}
	for range 1000 {
		p := listLoans(t, a, query)
		loans = append(loans, p.Loans...)
		if p.Next == nil {
			return loans
		}
		query.Set("cursor", *p.Next)
	}
	t.Fatal("paging does not end")
	return nil
}

// compareLoans orders loans as the view promises: due time, then ids byte by byte.
func compareLoans(t *testing.T, x, y currentLoan) int {
	dx, err := time.Parse(time.RFC3339Nano, x.DueAt)
	require.NoError(t, err)
	dy, err := time.Parse(time.RFC3339Nano, y.DueAt)
	require.NoError(t, err)
	if c := dx.Compare(dy); c != 0 {
		return c
	}
	if x.BookID != y.BookID {
		if x.BookID < y.BookID {
			return -1
		}
		return 1
	}
	if x.LoanID < y.LoanID {
		return -1
	}
	if x.LoanID > y.LoanID {
		return 1
	}
	return 0
}

// With sign-in: a member reads their own loans and no one else's (403), and not GET /loans;
// a librarian reads anyone's, and every loan; an operator neither.
func TestHTTPMemberSeesOwnLoans(t *testing.T) {
	t.Parallel()
	idp := apitest.StartProvider(t)
	apitest.ForEachStore(t, apitest.WithSignIn(apitest.FastBackground(app.Config{}), idp), func(t *testing.T, a *apitest.API) {
		librarian := []string{"Authorization", idp.Bearer(t, "libby")}
		alice := []string{"Authorization", idp.Bearer(t, "alice")}
		oscar := []string{"Authorization", idp.Bearer(t, "oscar")}
		for _, b := range []string{"dune", "emma"} {
			apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": b, "title": b, "author": "A"}, librarian...),
				http.StatusCreated, "book-"+b)
		}
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune/loans", apitest.Obj{"loanId": "l1", "memberId": "alice"}, librarian...),
			http.StatusCreated, "book-dune")
		last := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/emma/loans", apitest.Obj{"loanId": "l2", "memberId": "bob"}, librarian...),
			http.StatusCreated, "book-emma")
		caughtUp(t, a, last.Position, librarian...)

		mine := loansOf(t, a, "alice", alice...)
		require.Len(t, mine.Loans, 1)
		assert.Equal(t, "dune", mine.Loans[0].BookID)
		apitest.RequireProblem(t, a.Send(t, http.MethodGet, "/accounts/bob/loans", nil, alice...), http.StatusForbidden, "Forbidden")
		apitest.RequireProblem(t, a.Send(t, http.MethodGet, "/loans", nil, alice...), http.StatusForbidden, "Forbidden")
		apitest.RequireProblem(t, a.Send(t, http.MethodGet, "/loans?memberId=alice", nil, alice...), http.StatusForbidden, "Forbidden")
		apitest.RequireProblem(t, a.Send(t, http.MethodGet, "/loans", nil, oscar...), http.StatusForbidden, "Forbidden")
		apitest.RequireProblem(t, a.Send(t, http.MethodGet, "/accounts/alice/loans", nil, oscar...), http.StatusForbidden, "Forbidden")
		apitest.RequireProblem(t, a.Get(t, "/accounts/alice/loans"), http.StatusUnauthorized, "Unauthorized")

		bobs := loansOf(t, a, "bob", librarian...)
		require.Len(t, bobs.Loans, 1)
		assert.Equal(t, "emma", bobs.Loans[0].BookID)
		assert.Len(t, listLoans(t, a, nil, librarian...).Loans, 2)
	})
}
