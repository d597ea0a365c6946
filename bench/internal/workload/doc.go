// Package workload is what the benchmark does again and again, each a Measurement: a baseline
// of straight pgx transactions (read a stream, append one event) and single-row autocommit
// appends, PostgreSQL's own limits; then the service's commands (payments), contact changes,
// which seal personal data, replays of the payments with their keys, and a contended stream,
// over HTTP on keep-alive connections; the commands again with an access token; and any of
// them against the service built at BENCH_BEFORE (Before). Client speaks to the service, the
// requests of holds on titles included (titles.go).
package workload
