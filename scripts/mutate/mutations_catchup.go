package main

// catchUpMutations break what a view catching up with the log promises: a read of types that
// skips nothing, through its window or after it, and a bulk that ends.
var catchUpMutations = []mutation{
	{
		name:    "a read of types looks at its window past the read horizon, so a late commit is skipped",
		file:    "internal/eventstore/pgstore/types_window.go",
		find:    "AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())",
		replace: "AND transaction_id < pg_snapshot_xmax(pg_current_snapshot())",
		pkg:     "./internal/eventstore/pgstore/",
	},
	{
		name:    "a read of types whose window ended too soon does not read on after it",
		file:    "internal/eventstore/pgstore/types_window.go",
		find:    "w.end = &last",
		replace: "_ = last",
		pkg:     "./internal/eventstore/pgstore/",
	},
	{
		name:    "a view caught up in bulk never ends it: the catalog's search indexes stay dropped",
		file:    "internal/processor/engine/runner_bulk.go",
		find:    "case v.bulk.on || !v.bulk.ended:",
		replace: "case false:",
		pkg:     "./internal/processor/engine/",
	},
}
