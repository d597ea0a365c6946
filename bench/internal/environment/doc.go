// Package environment is what a benchmark run measures in: its settings, read from BENCH_*
// variables; a PostgreSQL server (BENCH_DATABASE_URL, or a throwaway cluster) with databases of
// the run's own; the service's processes, built from the working tree or at another revision,
// with the run's admin token and key; devidp, for the service with sign-in; an SMTP sink that
// records when it accepts each email; and a description of the machine for the report.
//
// Everything it starts, it stops: processes, clusters, databases and worktrees are removed
// even when the run is interrupted.
package environment
