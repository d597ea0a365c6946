package main

// titleMutations break what titles, their copies and the holds on titles promise: the queue's
// order, which hold a copy that comes free fills, who may wait, a renewal refused while members
// wait, what a copy's moves record on its title, a hold given up from the hold shelf, the books
// added before titles, barcodes kept unique, and ISBNs.
var titleMutations = []mutation{
	{
		name:    "title holds: a hold taken over goes ahead of the holds taken over before it, not behind them",
		file:    "internal/titles/holds.go",
		find:    "i >= 0 {\n\t\t\tat = i\n",
		replace: "i >= 0 {\n\t\t\tat = 0\n",
		pkg:     "./internal/titles/",
	},
	{
		name:    "title holds: a copy that comes back is held for the last in line",
		file:    "internal/titles/holds.go",
		find:    "func (t Title) Next(bookID string) string {\n\tfor _, h := range t.Holds {",
		replace: "func (t Title) Next(bookID string) string {\n\tfor _, h := range slices.Backward(t.Holds) {",
		pkg:     "./internal/holdshelf/",
	},
	{
		name:    "title holds: a hold for one copy is filled by any other copy, and never by that one",
		file:    "internal/titles/holds.go",
		find:    "\t\tif h.BookID == \"\" || h.BookID == bookID {\n\t\t\treturn h.MemberID",
		replace: "\t\tif h.BookID == \"\" || h.BookID != bookID {\n\t\t\treturn h.MemberID",
		pkg:     "./internal/shelves/",
	},
	{
		name:    "title holds: a hold on a title is taken while one copy of it is on the shelf",
		file:    "internal/titles/holds_decide.go",
		find:    "} else if n := t.OnShelf(); n > 0 {",
		replace: "} else if n := t.OnShelf(); n > 1 {",
		pkg:     "./internal/shelves/",
	},
	{
		name:    "title holds: a member with a copy held for them may wait for the title again",
		file:    "internal/titles/holds_decide.go",
		find:    "\t\tcase c.State == Held:\n",
		replace: "\t\tcase c.State == OnShelf:\n",
		pkg:     "./internal/titles/",
	},
	{
		name:    "title holds: one member more than HOLDS_MAX may wait for a title",
		file:    "internal/titles/holds_decide.go",
		find:    "if len(t.Holds) >= maxQueue {",
		replace: "if len(t.Holds) > maxQueue {",
		pkg:     "./internal/holdshelf/",
	},
	{
		name:    "copies: a loan is renewed while members wait for that copy alone",
		file:    "internal/books/service.go",
		find:    "n := q.Waiting(b.ID)",
		replace: "n := q.Waiting(\"\")",
		pkg:     "./internal/holdshelf/",
	},
	{
		name:    "copies: a copy given up by the member it was held for stays held on its title",
		file:    "internal/shelves/shelves.go",
		find:    "titles.TitleHoldCancelled{MemberID: e.MemberID, BookID: bookID}",
		replace: "titles.TitleHoldCancelled{MemberID: e.MemberID}",
		pkg:     "./internal/shelves/",
	},
	{
		name:    "copies: a member cannot give up the copy held for them: the cancel looks in the title's queue alone",
		file:    "internal/shelves/cancel.go",
		find:    "return h.Books.CancelHold(ctx, bookID, books.CancelHold{MemberID: memberID}, o)",
		replace: "return h.Titles.CancelHold(ctx, titleID, titles.CancelHold{MemberID: memberID}, o)",
		pkg:     "./internal/shelves/",
	},
	{
		name:    "copies: a book added before titles reads as one its title records, and is never adopted",
		file:    "internal/books/fold.go",
		find:    "Author: v1.Author, BeforeTitles: true})",
		replace: "Author: v1.Author, BeforeTitles: false})",
		pkg:     "./internal/books/",
	},
	{
		name:    "copies: a book added on its own (POST /books) does not reserve its barcode, so another copy may take it",
		file:    "internal/books/copies_service.go",
		find:    "}, c.ID, c.TitleID, s.shelve(c.ID, c.Barcode, title)))",
		replace: "}, c.ID, c.TitleID, s.shelve(c.ID, \"\", title)))",
		pkg:     "./internal/books/",
	},
	{
		name:    "isbn: an ISBN-10 whose ISBN-13 check digit is 0 is read with a colon for it",
		file:    "internal/isbn/isbn.go",
		find:    "return body + string(rune('0'+(10-sum%10)%10))",
		replace: "return body + string(rune('0'+10-sum%10))",
		pkg:     "./internal/isbn/",
	},
}
