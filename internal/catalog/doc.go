// Package catalog is the catalog view model: every book as GET /books lists it, and, from
// version 2 (TitlesFrom), every title as GET /titles lists it, kept up to date from the books'
// and the titles' events by the holder of the "catalog" lease (package processor), in memory
// (Memory) or in the catalog_books and catalog_titles tables (package catalogpg); GET /books
// and GET /titles themselves are package cataloghttp, readable on every replica. This package
// is plain Go: what an event does to the catalog, its filters and pages, and the wait for a
// position (Query).
//
// What it promises: a batch's rows and the catalog's checkpoint move together, in one
// transaction (or under one lock in memory), so a holder that lost its lease can't apply a batch
// twice; a page and the position it is as of are read at one moment; a read with minPosition
// waits until the catalog has handled that event, on whichever replica the catalog runs, or
// answers NotCaughtUp after Query.Wait, at once when the replica's WaitLimit is full or the
// client holds its share of it, and InvalidRequest at once for a position past the log; pages in
// id order visit every book once; a search folds case the same in memory and in PostgreSQL;
// a borrower is shown to staff only (catalogview.For); and a book on the hold shelf shows as held, to
// everyone alike: the catalog keeps no member id for a hold, only a digest that tells the
// holder's cancel from another's (HolderTag). From version 3 (MissingFrom), a copy on no shelf
// shows as lost or claimedReturned, with no loan, until it is returned.
//
// Of titles it promises: a title's row is folded from its stream by the Title aggregate's own
// Apply, so its counts (copies, copies on the shelf for anyone, members waiting) are those
// GET /titles/{titleId} counts for the same events; pages in the order of the title in lower
// case (FoldCase), then the id, visit every title once, from a cursor that holds both; a
// search that is an ISBN finds its title however it is written; and while the build that
// answers is older than TitlesFrom (an upgrade, until this release's build takes over), a read
// of titles is errs.NotCaughtUp at once, while the books are read from that build as ever.
package catalog
