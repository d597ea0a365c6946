package app

import (
	"context"
	"time"

	"library/internal/books"
	"library/internal/duedates"
	"library/internal/loans"
	"library/internal/processor"
)

// dueDates is the due-dates saga: the loans due on a day the library closes moved off it, on
// the books' service, the library's calendar in LIBRARY_TIMEZONE and the loans view.
func (a *App) dueDates(bookService *books.Service, loansView loans.View) processor.Processor {
	zone := a.cfg.Timezone
	return duedates.Saga{
		Moves:    books.DueDates{Books: bookService, Calendar: a.calendar, Zone: zone},
		Calendar: a.calendar, Zone: zone,
		Loans: dueLoans{view: loansView}, LoanTypes: loans.Processor(loansView).Types, Log: a.store,
		Logger: a.logger,
	}.Processor()
}

// dueLoans is the loans view as the due-dates saga reads it.
type dueLoans struct{ view loans.View }

// Due implements duedates.Loans.
func (d dueLoans) Due(ctx context.Context, from, to time.Time, each func([]duedates.Loan) error) (processor.Position, error) {
	return loans.EachDue(ctx, d.view, from, to, func(page []loans.Loan) error {
		due := make([]duedates.Loan, len(page))
		for i, l := range page {
			due[i] = duedates.Loan{BookID: l.BookID, LoanID: l.LoanID, DueAt: l.DueAt}
		}
		return each(due)
	})
}
