// Package duedates is the due-dates saga: it keeps every current loan off the days the library
// closes. When a day is closed (calendar.DayClosed), or weekdays are closed every week
// (calendar.WeeklyClosingSet), each loan then due on a closed day is moved to the end of the
// next day the library opens, with one books.DueDateMoved; the loan's reminders move with it
// (package notifications reads the event). It runs under the "due-dates" lease, in one replica
// at a time, from its checkpoint, as every processor does (package processor).
//
// # What it promises
//
// Each loan due on a closed day moves once, however often the closing is handled: by a new
// holder after a crash, or by a replay of the saga from the start. A move is the book's
// MoveDueDate command, decided on the calendar as the log holds it and on the book's current
// loan, under a command id made from the loan and the closed date (books.MoveCommandID); the
// command records nothing for a loan returned, moved or renewed off that day since, or for a
// day reopened since, and the saga looks at the book before it runs it, so a second run writes
// nothing at all. A due time only moves later: a day reopened moves no loan back, since its
// members were told the later one.
//
// # Finding the loans
//
// The loans a closing reaches are read from the loans view (package loans), by due time: those
// due within the closed day, on the library's clock (LIBRARY_TIMEZONE), or, for weekly
// closings, every current loan, of which those due on a day now closed are kept. The view is
// behind the log, so the saga reads it only once it has reached the closing: its checkpoint is
// at or past the closing, or no event the view reads is left after its checkpoint. (The view's
// checkpoint passes events of other types, such as the closing, without a write for each, so it
// may sit before the closing with nothing left to read: it is there all the same.) Every event
// ordered before the closing was committed before the saga could read the closing (the log is
// read below its oldest running transaction), so a view that has reached it holds every loan
// decided before it. Until then the closing waits (processor.Wait: deferred, using up no
// attempt) and looks again; it waits as long as the view is behind, which is never for long
// unless the view's own holder is down, and parking it would only leave an operator to send it
// again.
//
// # Loans decided on a calendar before the closing
//
// A loan may be decided on a calendar read just before a closing and appended just after it:
// the view, read at the closing, does not hold it, and its due time may be on the day closed.
// So the saga also reads every BookLent, LoanRenewed and DueDateMoved (a move decided on a
// calendar read before another closing), and moves the loan when its due time is on a day the
// calendar closes now. The log does not say which calendar a loan's decision read, so the rule
// is that no current loan stays due on a closed day, whenever it was decided: a loan of an
// exact period (a laptop for four hours) made after the closing with its due time on the
// closed day moves too, which is the member's gain (a due time only moves later). Should such
// loans keep their due times, the loan would have to record the calendar's version it was
// decided on, and this check skip the loans decided on a calendar that had the day closed.
//
// # Failures
//
// A failed read or command is retried as any saga's event is (deferred, then parked after its
// attempts); a store that is down pauses the saga, using up nothing. A closing that fails half
// way, or whose holder dies, is handled again whole: the loans moved already are passed over.
// The moves of one closing run one after another, so a closing with many loans due holds the
// saga for a while (a few milliseconds a loan); the events after it wait.
package duedates
