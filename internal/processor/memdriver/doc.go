// Package memdriver is the processors' driver in the memory of one process: checkpoints,
// deferred and parked events, timers and view builds (Checkpoints), leases (Leases), and a
// view's tables per build (Tables). It keeps the contract package pgdriver keeps on
// PostgreSQL (testkit/drivertest runs the same suite on both), so that what the engine's
// tests show in memory holds on PostgreSQL too; nothing in it outlives the process. It serves
// the service without DATABASE_URL and the tests.
package memdriver
