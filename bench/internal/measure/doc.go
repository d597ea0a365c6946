// Package measure runs cells: a workload's operation in a number of workers for a duration,
// timed one by one, into a Cell of throughput and latency percentiles. It also measures the
// main service while it runs: where its CPU goes (a pprof profile), its aggregate cache's hits
// and misses during the commands' cells (from /metrics), the loan emails' delay from commit to
// the SMTP sink at idle and under load, a payment's latency as its stream grows, and the
// process's memory.
package measure
