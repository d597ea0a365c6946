package catalog_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/books"
	"library/internal/catalog"
)

// A renewal moves the due date the catalog shows for the loan it names; one that names another
// loan of the book moves nothing.
func TestARenewalMovesTheDueDateShown(t *testing.T) {
	t.Parallel()
	forEachCatalog(t, func(t *testing.T, c writable) {
		renewed := nowUTC.Add(2 * loanPeriod)
		s := newShelf()
		s.add(t, "b1", "Dune", "Frank Herbert")
		s.add(t, "b2", "Emma", "Jane Austen")
		s.lend(t, "b1")
		s.lend(t, "b2")
		s.record(t, "b1", books.LoanRenewed{LoanID: "loan-b1", MemberID: "m1", DueAt: renewed})
		s.record(t, "b2", books.LoanRenewed{LoanID: "an earlier loan", MemberID: "m1", DueAt: renewed})
		s.applyTo(t, c)

		list, _, err := c.List(context.Background(), catalog.Filter{})
		require.NoError(t, err)
		require.Len(t, list.Books, 2)
		require.Equal(t, renewed, list.Books[0].Loan.DueAt.UTC())
		require.Equal(t, nowUTC.Add(loanPeriod), list.Books[1].Loan.DueAt.UTC())
		require.Equal(t, int64(3), list.Books[0].Version, "the renewal is read")
	})
}
