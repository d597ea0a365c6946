package notifications

import (
	"context"
	"fmt"

	"library/internal/books"
	"library/internal/eventstore"
)

// sendLoanEmail sends the loan email of a BookLent, once (see sendEventEmail).
func (o *Outbox) sendLoanEmail(ctx context.Context, e eventstore.Event, bookID string, lent books.BookLent) error {
	return o.sendEventEmail(ctx, e, bookID, eventEmail{
		memberID: lent.MemberID, span: "send loan email", loanID: lent.LoanID,
		subject: func(book Book) string { return "You borrowed " + book.Title },
		body:    func(name string, book Book) string { return loanBody(name, book, lent) },
	})
}

func loanBody(name string, book Book, lent books.BookLent) string {
	return fmt.Sprintf("%s\n\nyou borrowed %s by %s on %s.\nPlease bring it back by %s.\n\nLoan: %s\n",
		greeting(name), book.Title, book.Author, lent.LentAt.Format("2 January 2006"),
		lent.DueAt.Format(dueFormat), lent.LoanID)
}

// dueFormat is how an email gives a loan's due time.
const dueFormat = "2 January 2006, 15:04 MST"

func greeting(name string) string {
	if name == "" {
		return "Hello,"
	}
	return "Hello " + name + ","
}
