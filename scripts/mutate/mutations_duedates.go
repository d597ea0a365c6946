package main

// dueDateMutations break what the due-dates saga, the move of a due time and what follows it
// promise.
var dueDateMutations = []mutation{
	{
		name:    "due dates: a closing reads the loans view before the view has reached it",
		file:    "internal/duedates/saga.go",
		find:    "left, err := s.Log.CountAfter(ctx, pos.Checkpoint, s.LoanTypes...)\n\treturn err == nil && left == 0, err",
		replace: "return true, nil",
		pkg:     "./internal/duedates/",
	},
	{
		name:    "due dates: a loan lent onto a closed day on a calendar read before the closing stays due on it",
		file:    "internal/duedates/saga.go",
		find:    "case books.BookLent:\n\t\treturn s.decided(ctx, e, bookID, ev.LoanID, ev.DueAt)",
		replace: "case books.BookLent:\n\t\t_ = ev\n\t\treturn nil",
		pkg:     "./internal/duedates/",
	},
	{
		name:    "due dates: a loan moved already is moved again by the same command",
		file:    "internal/books/duedate.go",
		find:    "case cal.DateOf(b.Loan.DueAt) != c.Date, cal.Open(c.Date),",
		replace: "case cal.Open(c.Date),",
		pkg:     "./internal/books/",
	},
	{
		name:    "due dates: a moved loan's reminders stay at its old due time",
		file:    "internal/notifications/outbox.go",
		find:    "return o.moveReminders(ctx, bookID, ev, e.RecordedAt)",
		replace: "return nil",
		pkg:     "./internal/notifications/",
	},
	{
		name:    "due dates: a loan moved while overdue is sent its first overdue notice again",
		file:    "internal/notifications/reminders.go",
		find:    "return o.scheduleOverdue(ctx, bookID, m.LoanID, m.DueAt, came+1)",
		replace: "return o.scheduleOverdue(ctx, bookID, m.LoanID, m.DueAt, 1)",
		pkg:     "./internal/notifications/",
	},
	{
		name:    "due dates: the loans view forgets why a due time moved (PostgreSQL)",
		file:    "internal/loans/loanspg/loanspg.go",
		find:    "if !b.moved {\n\t\t\tbatch.Queue(`UPDATE loans_books SET due_at = $3 WHERE",
		replace: "if true {\n\t\t\tbatch.Queue(`UPDATE loans_books SET due_at = $3 WHERE",
		pkg:     "./internal/loans/",
	},
}
