// Package loans is the loans view model: every current loan, with its book's title, its due
// time, the renewals made and, for a due time a closed day moved, why, kept up to date from
// the books' events by the holder of the "loans" lease (package processor), in memory or in
// the loans_books table; GET /loans and GET /accounts/{memberId}/loans (package loanshttp),
// readable on every replica; and the loans due in a range (EachDue), for the due-dates saga.
//
// What it promises: a batch's rows and the view's checkpoint move together, in one transaction
// (or under one lock in memory), so a holder that lost its lease can't apply a batch twice; a
// page and the position it is as of are read at one moment; pages in (dueAt, bookId, loanId)
// order visit every loan that keeps its due time once; memory and PostgreSQL order, filter and
// page alike (due times are kept to the microsecond, as PostgreSQL keeps them).
//
// What it keeps about people: member ids only, which are not personal data (a new one that
// looks like an email address is refused; docs/api.md). No name or email is read or shown.
// A member's erasure (accounts.MemberErased) ends whatever loans the view still shows for
// them, though an erasure is refused while a book is on loan to the member.
package loans
