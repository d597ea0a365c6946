// Package drivertest is the contract that every processor driver meets, as tests any driver's
// package runs on its own: TestCheckpoints for a processor.Checkpoints, TestTimers for the
// timers it keeps, TestForgetMember for checkpoints that forget an erased member's waiting
// events, TestLeases for a processor.Leases. Package processor runs them on its memory drivers,
// package pgdriver on PostgreSQL, so that the engine can count on the same behaviour from
// either: a checkpoint moves only by compare-and-set and only forward, a replay fences the
// previous generation, deferred and parked events are kept whole, timers are written with the
// checkpoint move and due by the store's clock, and a lease has one holder at a time.
//
// It also has the fixtures those tests and the engine's use to build positions and events and
// to read checkpoints back. It is for tests only: no package that ships imports it.
package drivertest
