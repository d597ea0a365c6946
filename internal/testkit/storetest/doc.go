// Package storetest is the contract suite of the log: the tests every eventstore.Store, and
// every store of eventstore.Snapshots, must pass, whatever keeps it. The memory store's tests
// (package eventstore) and the PostgreSQL store's (package pgstore) run the same suites, so
// the two keep one contract. It is a test harness: only tests import it.
package storetest
