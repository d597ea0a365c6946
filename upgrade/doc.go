// Package upgrade is the upgrade suite: it builds the release before this one from the
// repository's history, lets it write a library's log into PostgreSQL (books, members, loans
// and a renewal, returns, holds, fines and payments, an erased member), stops it, starts this
// build on the same database, and checks that every route answers what the release before
// answered (more may be said, nothing less or other), and that the library goes on from there.
// Its tests carry the build tag "upgrade" and run with `make upgrade`.
//
// The release is named by its commit in upgrade_test.go, and it must be in this clone's
// history: a clone made with --depth can't build it, and the suite says so.
package upgrade
