// Package catalog is the catalog view model: every book as GET /books lists it, kept up to date
// from the books' events by the holder of the "catalog" lease (package processor), in memory
// (Memory) or in the catalog_books table (package catalogpg); GET /books itself is package
// cataloghttp, readable on every replica. This package is plain Go: what an event does to the
// catalog, its filters and pages, and the wait for a position (Query).
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
// holder's cancel from another's (HolderTag).
package catalog
