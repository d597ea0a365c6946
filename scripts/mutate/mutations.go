package main

// mutation is one small, deliberate bug in the code that keeps a promise: the text to find
// (exactly once) in file, what to put instead, and the package whose tests must catch it.
type mutation struct {
	name    string // what the bug breaks, in words
	file    string
	find    string
	replace string
	pkg     string
}

// mutations are the bugs make mutate makes, one at a time.
var mutations = []mutation{
	{
		name:    "a lease is trusted however old its last good check",
		file:    "internal/processor/pgdriver/lease.go",
		find:    "return time.Since(*l.lastGood.Load()) < l.timing.SessionTimeout-l.timing.CheckTimeout",
		replace: "return true",
		pkg:     "./internal/processor/pgdriver/",
	},
	{
		name:    "a lost lease does not stop the work in hand",
		file:    "internal/processor/engine/runner.go",
		find:    "case <-lease.Lost():\n\t\t\tcancel()",
		replace: "case <-lease.Lost():",
		pkg:     "./internal/processor/engine/",
	},
	{
		name:    "a failed Park is ignored: the checkpoint moves past an event neither handled nor parked",
		file:    "internal/processor/engine/dispatch_worker.go",
		find:    "return d.checkpoints.Park(ctx, d.proc.Name, processor.Parked{Event: e, Reason: reason.Error(), Attempts: attempts})",
		replace: "_ = d.checkpoints.Park(ctx, d.proc.Name, processor.Parked{Event: e, Reason: reason.Error(), Attempts: attempts})\n\t\treturn nil",
		pkg:     "./internal/processor/engine/",
	},
	{
		name:    "checkpoints are not fenced: two holders both move one (in memory)",
		file:    "internal/processor/checkpoints_memory.go",
		find:    "if m.positions[name] != from {\n\t\treturn ErrFenced",
		replace: "if false {\n\t\treturn ErrFenced",
		pkg:     "./internal/processor/",
	},
	{
		name:    "checkpoints are not fenced: two holders both move one (PostgreSQL)",
		file:    "internal/processor/pgdriver/checkpoints.go",
		find:    "WHERE name = $1 AND generation = $2 AND transaction_id = $3::xid8 AND position = $4`",
		replace: "WHERE name = $1 AND $2::bigint IS NOT NULL AND $3::xid8 IS NOT NULL AND $4::bigint IS NOT NULL`",
		pkg:     "./internal/processor/pgdriver/",
	},
	{
		name:    "an append notifies no other process",
		file:    "internal/eventstore/pgstore/notify.go",
		find:    `"SELECT pg_notify($1, '')", notifyChannel`,
		replace: `"SELECT $1::text", notifyChannel`,
		pkg:     "./internal/eventstore/pgstore/",
	},
	{
		name:    "reads go past the oldest running transaction, so a late commit is skipped",
		file:    "internal/eventstore/pgstore/store.go",
		find:    "WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())",
		replace: "WHERE transaction_id < pg_snapshot_xmax(pg_current_snapshot())",
		pkg:     "./internal/eventstore/pgstore/",
	},
	{
		name:    "a half-written append commits",
		file:    "internal/eventstore/pgstore/append.go",
		find:    "THEN events_partial_append() ELSE 0 END = 1",
		replace: "THEN 1 ELSE 0 END = 1",
		pkg:     "./internal/eventstore/pgstore/",
	},
	{
		name:    "a repeated Idempotency-Key is decided again instead of replayed",
		file:    "internal/aggregate/group.go",
		find:    "if past, ok := loaded.commands.Find(key); ok {",
		replace: "if past, ok := loaded.commands.Find(key); ok && key == \"\\x00\" {",
		pkg:     "./internal/aggregate/",
	},
	{
		name:    "one key twice in one commit group is written twice",
		file:    "internal/aggregate/group.go",
		find:    `if first, ok := keys[key]; ok && key != "" {`,
		replace: `if first, ok := keys[key]; ok && key == "\x00" {`,
		pkg:     "./internal/aggregate/",
	},
	{
		name:    "a new holder sends an email the relay accepted before the takeover",
		file:    "internal/notifications/outbox.go",
		find:    "if done, err := o.alreadyAccepted(ctx, id); done || err != nil {",
		replace: "if done, err := o.alreadyAccepted(ctx, id); (done && id == \"\") || err != nil {",
		pkg:     "./internal/notifications/",
	},
	{
		name:    "a standby's lease check never notices its connection failed",
		file:    "internal/processor/pgdriver/lease.go",
		find:    "l.lose()\n\t\t\tcloseConn(l.conn)\n\t\t\treturn",
		replace: "closeConn(l.conn)\n\t\t\treturn",
		pkg:     "./internal/processor/pgdriver/",
	},
	{
		name:    "request bodies are not capped: a chunked body of any size is read",
		file:    "internal/httpapi/router.go",
		find:    "\t\tlimitBody(MaxBodyBytes), deadline(",
		replace: "\t\tdeadline(",
		pkg:     "./internal/httpapi/",
	},
	{
		name:    "X-Forwarded-For is believed from anyone when TRUSTED_PROXIES is unset",
		file:    "internal/httpapi/proxy.go",
		find:    "return middleware.ClientIPFromRemoteAddr",
		replace: "return middleware.ClientIPFromXFFTrustedProxies(1)",
		pkg:     "./internal/httpapi/",
	},
	{
		name:    "SMTP_MAX_RATE is parsed but never reaches the mailer",
		file:    "internal/app/background.go",
		find:    "smtp.MaxRate = a.cfg.SMTPMaxRate\n",
		replace: "",
		pkg:     "./internal/app/",
	},
	{
		name:    "CATALOG_MAX_WAITS is parsed but never reaches GET /books",
		file:    "internal/app/app.go",
		find:    ", Waits: catalog.NewWaitLimit(cfg.CatalogMaxWaits)}",
		replace: "}",
		pkg:     "./internal/app/",
	},
	{
		name:    "readiness stays up once ready: a failed database ping is only logged",
		file:    "internal/app/app.go",
		find:    "if err := a.store.Ping(ctx); err != nil {\n\t\treturn err\n\t}",
		replace: "if err := a.store.Ping(ctx); err != nil {\n\t\ta.logger.Warn(\"ping failed\", \"err\", err)\n\t}",
		pkg:     "./internal/app/",
	},
	{
		name:    "a member reads another member's account: own is any member id",
		file:    "internal/auth/rules.go",
		find:    "if r.Member == Own && memberID != \"\" && memberID == c.MemberID {",
		replace: "if r.Member == Own && memberID != \"\" {",
		pkg:     "./internal/auth/",
	},
	{
		name:    "anyone, signed in or not, may charge a fine",
		file:    "internal/auth/rules.go",
		find:    "librarians(http.MethodPost, \"/accounts/{memberId}/fines\"),",
		replace: "Anyone(http.MethodPost, \"/accounts/{memberId}/fines\"),",
		pkg:     "./internal/app/",
	},
	{
		name:    "an Idempotency-Key replays its answer to someone else who sends it",
		file:    "internal/aggregate/replay.go",
		find:    "case past.Actor != w.actor:",
		replace: "case false && past.Actor != w.actor:",
		pkg:     "./internal/aggregate/",
	},
	{
		name:    "a snapshot is written ahead of its state: its version counts an event its state lacks",
		file:    "internal/aggregate/group.go",
		find:    "if r.due(loaded.Version, after.Version) {\n\t\t\treturn &after",
		replace: "if r.due(loaded.Version, after.Version) {\n\t\t\tafter.State = loaded.State\n\t\t\treturn &after",
		pkg:     "./internal/aggregate/",
	},
	{
		name:    "the domain reaches a database driver: books imports pgx",
		file:    "internal/books/book.go",
		find:    "import (\n\t\"maps\"",
		replace: "import (\n\t_ \"github.com/jackc/pgx/v5\"\n\t\"maps\"",
		pkg:     "./internal/importcheck/",
	},
	{
		name:    "the service ships a test harness: app imports apitest",
		file:    "internal/app/app.go",
		find:    "import (\n",
		replace: "import (\n\t_ \"library/internal/testkit/apitest\"\n",
		pkg:     "./internal/importcheck/",
	},
	{
		name:    "an import goes up: books imports the catalog that reads it",
		file:    "internal/books/book.go",
		find:    "import (\n\t\"maps\"",
		replace: "import (\n\t_ \"library/internal/catalog\"\n\t\"maps\"",
		pkg:     "./internal/importcheck/",
	},
}
