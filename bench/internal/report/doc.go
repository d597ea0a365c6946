// Package report turns a run's results into the table it prints and the Markdown file it
// writes (docs/benchmarks.md): the throughput table, each target with what it was measured as
// and its verdict, and a section for each measurement. With BENCH_ONLY=timers it writes the
// timers' figures into the last full run's file in place of its own.
package report
