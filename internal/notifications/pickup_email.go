package notifications

import (
	"context"
	"fmt"

	"library/internal/books"
	"library/internal/eventstore"
)

// sendPickupEmail tells the member a BookHeld is for that the book waits for them on the hold
// shelf, once, as a loan email is sent (see sendEventEmail).
func (o *Outbox) sendPickupEmail(ctx context.Context, e eventstore.Event, bookID string, held books.BookHeld) error {
	return o.sendEventEmail(ctx, e, bookID, eventEmail{
		memberID: held.MemberID, span: "send pickup email",
		subject: func(book Book) string { return "Ready for pickup: " + book.Title },
		body:    func(name string, book Book) string { return pickupBody(name, book, held) },
	})
}

func pickupBody(name string, book Book, held books.BookHeld) string {
	return fmt.Sprintf("%s\n\n%s by %s, which you asked to hold, is back, and waits for you at the desk until %s.\n"+
		"After that it goes to the next member in line.\n", greeting(name), book.Title, book.Author, held.Until.Format(dueFormat))
}
