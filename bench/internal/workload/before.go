package workload

// The before measurements (BENCH_BEFORE): the service as built at another revision, a process
// of its own on a database of its own, measured with the same commands, contact changes and
// contention as the current service. Each of its cells runs right after the current service's at the same
// concurrency, so that both meet the machine in the same state.

// BeforeSuffix marks the rows of the service built at BENCH_BEFORE.
const BeforeSuffix = " (before)"

// Before is a measurement of the service built at BENCH_BEFORE: the same work, under its own
// label.
type Before struct{ Measurement }

// Name implements Measurement: the rows' label.
func (b Before) Name() string { return b.Measurement.Name() + BeforeSuffix }
