package pgdriver

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/jackc/pgx/v5"

	"library/internal/errs"
	"library/internal/pgerr"
	"library/internal/processor"
)

// The builds of the view models are rows of view_builds (migrations/00016_view_builds.sql),
// and what each replica reads, rows of view_readers. Every change of a view's builds runs in a
// transaction that first takes lockViewSQL, so that they take turns; a change that drops a
// build's tables, or moves reads from one build to another, first locks the rows of those
// builds, which every write to a build's tables locks for share (ViewTx): it waits for the
// writes in hand, and the writes after it find the build as it left it.

var _ processor.Builds = (*Checkpoints)(nil)

// lockViewSQL serializes the changes of one view's builds. Its two keys keep it apart from the
// leases' locks, which take one.
const lockViewSQL = `SELECT pg_advisory_xact_lock(1447642455, hashtext($1))`

const (
	listBuildsSQL = `SELECT build, version, state FROM view_builds WHERE view = $1 AND state <> 'dropped' ORDER BY build`
	// lockBuildsSQL lists them and locks their rows until the transaction ends.
	lockBuildsSQL = listBuildsSQL + ` FOR UPDATE`
)

// ListBuilds implements processor.Builds.
func (c *Checkpoints) ListBuilds(ctx context.Context, view string) ([]processor.Build, error) {
	rows, err := c.pool.Query(ctx, listBuildsSQL, view)
	if err != nil {
		return nil, translateBuilds(ctx, err)
	}
	builds, err := collectBuilds(rows, view)
	return builds, translateBuilds(ctx, err)
}

// lockBuilds lists the builds of view in tx, their rows locked until it ends.
func lockBuilds(ctx context.Context, tx pgx.Tx, view string) ([]processor.Build, error) {
	rows, err := tx.Query(ctx, lockBuildsSQL, view)
	if err != nil {
		return nil, err
	}
	return collectBuilds(rows, view)
}

// collectBuilds reads rows of (build, version, state) of view.
func collectBuilds(rows pgx.Rows, view string) ([]processor.Build, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (processor.Build, error) {
		b := processor.Build{View: view}
		err := row.Scan(&b.Number, &b.Version, &b.State)
		return b, err
	})
}

// buildsTx runs fn in a transaction that holds the view's lock.
func (c *Checkpoints) buildsTx(ctx context.Context, view string, fn func(tx pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockViewSQL, view); err != nil {
			return err
		}
		return fn(tx)
	})
	return translateBuilds(ctx, err)
}

func translateBuilds(ctx context.Context, err error) error {
	var own *errs.Error
	if errors.Is(err, processor.ErrBuildGone) || errors.As(err, &own) {
		return err
	}
	return pgerr.Translate(ctx, err, "the views' builds")
}

// schemaPattern is what a build's schema is called: view_<view>_<number>.
var schemaPattern = regexp.MustCompile(`^view_[a-z][a-z0-9_]*_[0-9]+$`)

const insertBuildSQL = `
INSERT INTO view_builds (view, build, version, state, schema_name, answered_at)
VALUES ($1, $2, $3, $4, $5, CASE WHEN $4 = 'answering' THEN now() END)`

// StartBuild implements processor.Builds. A build's number is one more than the last the view
// gave, dropped ones included, so that no two builds share a name, a lease or a schema.
func (c *Checkpoints) StartBuild(ctx context.Context, view string, version int, again bool) (processor.Build, bool, error) {
	var out processor.Build
	started := false
	err := c.buildsTx(ctx, view, func(tx pgx.Tx) error {
		builds, err := lockBuilds(ctx, tx, view)
		if err != nil {
			return err
		}
		caughtUp := false
		for _, b := range builds {
			switch {
			case b.State == processor.BuildBuilding && b.Version >= version:
				out = b
				return nil
			case b.State == processor.BuildBuilding:
				if err := dropBuild(ctx, tx, b); err != nil { // a newer release's build replaces it
					return err
				}
			case b.Version == version && !again:
				return nil
			default:
				caughtUp = true
			}
		}
		var last int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(build), 0) FROM view_builds WHERE view = $1`, view).Scan(&last); err != nil {
			return err
		}
		out = processor.Build{View: view, Number: last + 1, Version: version, State: processor.BuildBuilding}
		if !caughtUp {
			out.State = processor.BuildAnswering
		}
		schema := fmt.Sprintf("view_%s_%d", view, out.Number)
		if !schemaPattern.MatchString(schema) {
			return fmt.Errorf("view %q: its builds' tables can't be kept in schema %q", view, schema)
		}
		started = true
		_, err = tx.Exec(ctx, insertBuildSQL, view, out.Number, version, out.State, schema)
		return err
	})
	if err != nil {
		return processor.Build{}, false, err
	}
	return out, started, nil
}

const setBuildStateSQL = `
UPDATE view_builds SET state = $3,
  answered_at = CASE WHEN $3 = 'answering' THEN now() ELSE answered_at END,
  retired_at = CASE WHEN $3 = 'retired' THEN now() ELSE retired_at END
WHERE view = $1 AND build = $2`

// TakeOver implements processor.Builds. The rows of the view's builds are locked first, so that
// the checkpoints it compares stay as they are until it commits.
func (c *Checkpoints) TakeOver(ctx context.Context, b processor.Build) (processor.Build, error) {
	var out processor.Build
	err := c.buildsTx(ctx, b.View, func(tx pgx.Tx) error {
		builds, err := lockBuilds(ctx, tx, b.View)
		if err != nil {
			return err
		}
		var cur, answering *processor.Build
		for i := range builds {
			switch {
			case builds[i].Number == b.Number:
				cur = &builds[i]
			case builds[i].State == processor.BuildAnswering:
				answering = &builds[i]
			}
		}
		if cur == nil {
			return processor.ErrBuildGone
		}
		out = *cur
		next, err := takeOverState(ctx, tx, *cur, answering)
		if err != nil || next == cur.State {
			return err
		}
		if next == processor.BuildAnswering && answering != nil {
			if _, err := tx.Exec(ctx, setBuildStateSQL, b.View, answering.Number, processor.BuildRetired); err != nil {
				return err
			}
		}
		out.State = next
		_, err = tx.Exec(ctx, setBuildStateSQL, b.View, cur.Number, next)
		return err
	})
	if err != nil {
		return processor.Build{}, err
	}
	return out, nil
}

// takeOverState is the state a caught-up build goes to: answering, unless the answering build
// outranks it (then a building one is retired: it answers for its own release), or its
// checkpoint has not reached the answering build's yet (then it stays as it is).
func takeOverState(ctx context.Context, tx pgx.Tx, cur processor.Build, answering *processor.Build) (processor.BuildState, error) {
	switch {
	case cur.State == processor.BuildAnswering || answering == nil:
		return processor.BuildAnswering, nil
	case processor.Outranks(*answering, cur) && cur.State == processor.BuildBuilding:
		return processor.BuildRetired, nil
	case processor.Outranks(*answering, cur):
		return cur.State, nil
	}
	var mine, theirs processor.Position
	if err := loadTx(ctx, tx, cur.Name(), &mine); err != nil {
		return "", err
	}
	if err := loadTx(ctx, tx, answering.Name(), &theirs); err != nil {
		return "", err
	}
	if mine.Checkpoint.Before(theirs.Checkpoint) {
		return cur.State, nil // not before its reads are as far on as the answering build's
	}
	return processor.BuildAnswering, nil
}

func loadTx(ctx context.Context, tx pgx.Tx, name string, p *processor.Position) error {
	err := tx.QueryRow(ctx, `SELECT generation, transaction_id, position FROM processor_checkpoints WHERE name = $1`, name).
		Scan(&p.Generation, &p.Checkpoint.TransactionID, &p.Checkpoint.Position)
	if errors.Is(err, pgx.ErrNoRows) {
		*p = processor.Position{}
		return nil
	}
	return err
}

// droppableSQL are the retired builds of a view that no reader has named within keep ($2, in
// microseconds), locked, as are their writes, until the drop commits.
const droppableSQL = `
SELECT b.build, b.version, b.state FROM view_builds b
WHERE b.view = $1 AND b.state = 'retired' AND b.retired_at <= now() - $2::bigint * interval '1 microsecond'
  AND NOT EXISTS (SELECT 1 FROM view_readers r WHERE r.view = b.view AND r.build = b.build
    AND r.seen_at > now() - $2::bigint * interval '1 microsecond')
ORDER BY b.build
FOR UPDATE OF b`

// DropBuilds implements processor.Builds. Readers that have not said what they read within
// keep are forgotten.
func (c *Checkpoints) DropBuilds(ctx context.Context, view string, keep time.Duration) ([]processor.Build, error) {
	var dropped []processor.Build
	err := c.buildsTx(ctx, view, func(tx pgx.Tx) error {
		dropped = nil
		_, err := tx.Exec(ctx, `DELETE FROM view_readers WHERE view = $1 AND seen_at <= now() - $2::bigint * interval '1 microsecond'`,
			view, keep.Microseconds())
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, droppableSQL, view, keep.Microseconds())
		if err != nil {
			return err
		}
		builds, err := collectBuilds(rows, view)
		if err != nil {
			return err
		}
		for _, b := range builds {
			if err := dropBuild(ctx, tx, b); err != nil {
				return err
			}
		}
		dropped = builds
		return nil
	})
	if err != nil {
		return nil, err
	}
	return dropped, nil
}

// dropBuild drops a build's tables, and forgets its checkpoint and what is kept under its name,
// in tx. Its row stays, dropped, so that its number is never given again. A drop waits at most
// lock_timeout for the reads in hand of its tables.
func dropBuild(ctx context.Context, tx pgx.Tx, b processor.Build) error {
	name := b.Name()
	batch := &pgx.Batch{}
	batch.Queue(`SET LOCAL lock_timeout = '5s'`)
	batch.Queue(`SELECT 1 FROM view_builds WHERE view = $1 AND build = $2 FOR UPDATE`, b.View, b.Number)
	batch.Queue(`SELECT view_builds_drop_tables(view, schema_name) FROM view_builds WHERE view = $1 AND build = $2`, b.View, b.Number)
	batch.Queue(`UPDATE view_builds SET state = 'dropped', dropped_at = now() WHERE view = $1 AND build = $2`, b.View, b.Number)
	batch.Queue(`DELETE FROM view_readers WHERE view = $1 AND build = $2`, b.View, b.Number)
	batch.Queue(`DELETE FROM processor_checkpoints WHERE name = $1`, name)
	batch.Queue(`DELETE FROM processor_deferred WHERE name = $1`, name)
	batch.Queue(`DELETE FROM processor_parked WHERE name = $1`, name)
	batch.Queue(`DELETE FROM processor_timers WHERE processor = $1`, name)
	return tx.SendBatch(ctx, batch).Close()
}

// Reading implements processor.Builds.
func (c *Checkpoints) Reading(ctx context.Context, reader, view string, number int) error {
	var err error
	if number == 0 {
		_, err = c.pool.Exec(ctx, `DELETE FROM view_readers WHERE reader = $1 AND view = $2`, reader, view)
	} else {
		_, err = c.pool.Exec(ctx, `
INSERT INTO view_readers (reader, view, build) VALUES ($1, $2, $3)
ON CONFLICT (reader, view) DO UPDATE SET build = excluded.build, seen_at = now()`, reader, view, number)
	}
	return translateBuilds(ctx, err)
}

// MakeTables makes build b's tables once, when they are not made yet: in one transaction, the
// build's schema, then create, which runs the view's statements that create them (the schema is
// the first of the search path, so they make them there), and the note that they are made.
// ErrBuildGone when b was dropped.
func (c *Checkpoints) MakeTables(ctx context.Context, b processor.Build, create func(tx pgx.Tx) error) error {
	return c.buildsTx(ctx, b.View, func(tx pgx.Tx) error {
		var schema *string
		var created bool
		err := tx.QueryRow(ctx, `SELECT schema_name, created FROM view_builds WHERE view = $1 AND build = $2 AND state <> 'dropped' FOR UPDATE`,
			b.View, b.Number).Scan(&schema, &created)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			return processor.ErrBuildGone
		case err != nil || created:
			return err
		case schema == nil:
			return fmt.Errorf("build %s has neither tables nor a schema for them", b.Name())
		}
		batch := &pgx.Batch{}
		batch.Queue(`SELECT view_builds_make_schema($1)`, *schema)
		batch.Queue(`SELECT set_config('search_path', $1 || ', ' || current_setting('search_path'), true)`, *schema)
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return err
		}
		if err := create(tx); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE view_builds SET created = true WHERE view = $1 AND build = $2`, b.View, b.Number)
		return err
	})
}
