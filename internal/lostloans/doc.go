// Package lostloans is the saga that declares loans lost: a loan overdue for its terms'
// LostAfter open days (circulation.LoanTerms, by the library's calendar) ends with its copy lost
// and the member charged its replacement price (books.DeclareLost, which writes the book's
// LoanLost, the title's CopyMissing and the account's LoanClosed and ReplacementCharged in one
// append).
//
// It runs under a lease like every processor (package processor). Each loan made, renewed or
// moved off a closed day (BookLent, LoanRenewed, DueDateMoved) has a durable timer, "lost:<bookId>/<loanId>", due when the book's
// current loan is lost by the rules as the book and the calendar are when the event is read
// (books.Service.LossDue: the end of the LostAfter-th open day after the due time); the loan's
// end (BookReturned, LoanLost, ClaimedReturned) cancels it. A loan made before the rules keeps
// the terms it was made on, which had no LostAfter: it gets no timer, and only a librarian
// declares it lost.
//
// When the timer fires, the book and the calendar are read again: a loan that ended since does
// nothing (its end cancels the timer), and one whose lost time moved later (renewed or moved
// since, before the saga read it, or a day closed among its open days overdue) has its timer
// set again for then. Otherwise the saga
// runs DeclareLost with At the timer's time, under the command id "lost:<loanId>@<unix time>",
// derived from the loan and the timer: a fire repeated after a failover is answered from the
// book's log, and the book records a loan lost once whatever asks. The decision trusts the
// timer's time, which the database's clock made due, not this replica's clock, and checks it
// against the calendar itself. Because the timer is set from the book as it is now, a replay of
// the saga from the start of the log schedules nothing for loans that have ended, and writes
// nothing.
package lostloans
