// Package engine runs processors (package processor) in a replica: a Group takes each
// processor's lease, reads the log from its checkpoint while it holds the lease, hands the
// events to the view model or the handler, sorts what the handler returned (done, deferred,
// parked, paused, later, waiting), and moves the checkpoint with the timers the handler
// scheduled, which package timers fires beside it. It answers for the processors it runs: Status, Replay,
// RetryParked, Parked and the log's ReadHorizon.
//
// It runs on any driver that keeps the contract of package processor: the memory drivers there,
// or package pgdriver's. The promises it keeps, failures included, are in package processor's
// comment.
package engine
