// Package holds is the holds view model: every member waiting for a book, with their place in
// its queue, and every book on the hold shelf, with whom it waits for and until when; each with
// the book's title. It is kept up to date from the books' events by the holder of the "holds"
// lease (package processor), in memory or in the holds tables; and GET /holds and
// GET /accounts/{memberId}/holds (Routes) read it, on every replica.
//
// What it promises: a batch's rows and the view's checkpoint move together, in one transaction
// (or under one lock in memory), so a holder that lost its lease can't apply a batch twice; a
// page and the position it is as of are read at one moment; a waiting member's place is the
// book's queue's as the events have it: 1 for the first in line, the members counted in the
// order their holds were placed, so that one who leaves (a cancel, or the book held for them)
// moves everyone behind them up; pages visit every hold that keeps its place in the order once;
// memory and PostgreSQL order, filter and page alike (times are kept to the microsecond, as
// PostgreSQL keeps them).
//
// What it keeps about people: member ids only, which are not personal data (docs/api.md). No
// name or email is read or shown. A member's erasure (accounts.MemberErased) takes every hold
// of theirs out of the view, and no later event brings one back: the book's own queue keeps the
// erased member until their hold ends, but a book held for a member the view does not show is
// not shown either (an erased member places no new hold: accounts refuses them). Those who
// waited behind an erased member move up in the view at once, as though they had cancelled.
package holds
