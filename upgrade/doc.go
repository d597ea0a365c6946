// Package upgrade is the upgrade suite: it builds the release before this one from the
// repository's history, lets it write a library's log into PostgreSQL (books, members, loans
// and a renewal, returns, holds, fines and payments, an erased member), stops it, starts this
// build on the same database, and checks that every route answers what the release before
// answered (more may be said, nothing less or other), that every book became a copy of a title
// with no manual step (the books alike, copies of one), and that the library goes on from there.
// Its tests carry the build tag "upgrade" and run in `make test`, and alone with `make upgrade`.
//
// The release is named by its commit in main_test.go, and is taken from this clone's history:
// a clone without it (made with --depth) fetches it from origin, and if that fails too the
// suite fails, naming the commit (proctest.BuildRelease).
package upgrade
