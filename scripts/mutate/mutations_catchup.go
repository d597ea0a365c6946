package main

// catchUpMutations break what a view catching up with the log promises: a read of types that
// skips nothing, through its window or after it, a bulk that ends, a read of data that keeps
// the schema version, and a saga that passes over what its handler does not select, saved; a
// saga of older events given those alone, and a view that prepares its batches applying them
// as prepared.
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
	{
		name:    "a read of data leaves out the schema version, so an old event is decoded as a new one",
		file:    "internal/eventstore/pgstore/store.go",
		find:    "data::text,\n\tcoalesce((metadata->>'schema')::int, 0), recorded_at`",
		replace: "data::text,\n\t0, recorded_at`",
		pkg:     "./internal/eventstore/pgstore/",
	},
	{
		name:    "a handler's selection is ignored: every event of its types is started",
		file:    "internal/processor/engine/dispatch_read.go",
		find:    "if d.selector != nil && !d.selector.Selects(e) {",
		replace: "if false {",
		pkg:     "./internal/processor/engine/",
	},
	{
		name:    "events a handler passes over are saved as unread ones: the checkpoint waits ten seconds",
		file:    "internal/processor/engine/dispatch_read.go",
		find:    "d.passedRead = true // passed over",
		replace: "_ = d.passedRead // passed over",
		pkg:     "./internal/processor/engine/",
	},
	{
		name:    "a view's transaction waits for the disk like any other",
		file:    "internal/processor/pgdriver/views.go",
		find:    "set_config('synchronous_commit', 'off', true)",
		replace: "set_config('synchronous_commit', 'on', true)",
		pkg:     "./internal/processor/pgdriver/",
	},
	{
		name:    "a view that reads data only is given whole events: nothing tells the two reads apart",
		file:    "internal/processor/engine/runner_readahead.go",
		find:    "ok && h.proc.DataOnly {",
		replace: "ok && false {",
		pkg:     "./internal/processor/engine/",
	},
	{
		name:    "a read of older events reads the newer too",
		file:    "internal/eventstore/pgstore/types.go",
		find:    "AND coalesce((metadata->>'schema')::int, 1) < $5",
		replace: "AND coalesce((metadata->>'schema')::int, 1) < $5 + 100",
		pkg:     "./internal/eventstore/pgstore/",
	},
	{
		name:    "a saga of older events is given every event of its types",
		file:    "internal/processor/engine/dispatch_read.go",
		find:    "ok && d.proc.SchemaBelow > 0 && len(d.proc.Types) > 0 {",
		replace: "ok && false {",
		pkg:     "./internal/processor/engine/",
	},
	{
		name:    "a view that prepares its batches has them applied through Apply, unprepared",
		file:    "internal/processor/engine/runner_view.go",
		find:    "if read.prepared != nil {",
		replace: "if false {",
		pkg:     "./internal/processor/engine/",
	},
	{
		name:    "a catch-up in bulk leaves the titles' B-trees dropped",
		file:    "internal/catalog/catalogpg/bulk.go",
		find:    "CREATE INDEX IF NOT EXISTS ` + titlesOrderIndex + `;",
		replace: "SELECT 1;",
		pkg:     "./internal/catalog/",
	},
}
