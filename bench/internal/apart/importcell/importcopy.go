package importcell

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// BareCopies is how many times the bare COPY is measured: its pace is their median, the
// machine being shared (one COPY of the same rows took 15.9 s in one run, 31.1 s in another).
const BareCopies = 3

// bareCopy measures PostgreSQL's own pace beside the import's: after a VACUUM ANALYZE of the
// database (what autovacuum would do soon after an import, done now so that it does not run
// beside the COPY), BareCopies times a CHECKPOINT and one COPY of res.Events rows into an empty
// bare table, the rows being the import's first ImportTemplateRows events (those after position
// from) again and again. Then, after another CHECKPOINT, the same COPY into a table shaped like the log (CREATE
// TABLE ... (LIKE events INCLUDING ALL): its defaults, its position's identity, its checks and
// its four indexes), empty: PostgreSQL's pace for the log's own rows, which no writer of the
// log can pass. Then the tables' sizes, and both tables dropped.
func bareCopy(ctx context.Context, conn *pgx.Conn, from int64, res *ImportResult) error {
	template := &bareRows{}
	if err := readTemplate(ctx, conn, from, template); err != nil {
		return err
	}
	for _, statement := range []string{
		`VACUUM ANALYZE`,
		`CREATE TABLE ` + bareTable + ` (stream_id text, version bigint, type text, data jsonb, metadata jsonb)`,
		`CREATE TABLE ` + shapedTable + ` (LIKE events INCLUDING ALL)`,
	} {
		if _, err := conn.Exec(ctx, statement); err != nil {
			return fmt.Errorf("%s: %w", statement, err)
		}
	}
	if err := bareCopies(ctx, conn, template, res); err != nil {
		return err
	}
	var err error
	res.Checkpointed = checkpoint(ctx, conn) && res.Checkpointed
	if res.ShapedRows, res.ShapedWall, err = copyInto(ctx, conn, shapedTable, template, res.Events); err != nil {
		return err
	}
	err = conn.QueryRow(ctx, `SELECT pg_table_size('events'), pg_indexes_size('events'), pg_table_size('`+bareTable+`')`).
		Scan(&res.EventsTable, &res.EventsIndexes, &res.BareTable)
	if err != nil {
		return fmt.Errorf("the tables' sizes: %w", err)
	}
	if _, err := conn.Exec(ctx, `DROP TABLE `+bareTable+`, `+shapedTable); err != nil {
		return fmt.Errorf("dropping the COPY's tables: %w", err)
	}
	return nil
}

// bareCopies times BareCopies COPYs into the bare table, each after a CHECKPOINT into the
// table emptied, and keeps their median; the last one's rows stay, for the table's size.
func bareCopies(ctx context.Context, conn *pgx.Conn, template *bareRows, res *ImportResult) error {
	for i := range BareCopies {
		if i > 0 {
			if _, err := conn.Exec(ctx, `TRUNCATE `+bareTable); err != nil {
				return fmt.Errorf("emptying the bare table: %w", err)
			}
		}
		res.Checkpointed = checkpoint(ctx, conn) && res.Checkpointed
		rows, took, err := copyInto(ctx, conn, bareTable, template, res.Events)
		if err != nil {
			return err
		}
		res.CopyRows, res.CopyWalls = rows, append(res.CopyWalls, took)
	}
	sorted := slices.Clone(res.CopyWalls)
	slices.Sort(sorted)
	res.CopyWall = sorted[len(sorted)/2]
	return nil
}

// copyInto is one COPY of n rows of template into table, timed with its commit.
func copyInto(ctx context.Context, conn *pgx.Conn, table string, template *bareRows, n int64) (int64, time.Duration, error) {
	rows := &bareRows{template: template.template, n: n}
	start := time.Now()
	copied, err := conn.CopyFrom(ctx, pgx.Identifier{table}, []string{"stream_id", "version", "type", "data", "metadata"}, rows)
	took := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("the COPY into %s: %w", table, err)
	}
	if copied != n {
		return 0, 0, fmt.Errorf("the COPY into %s wrote %d rows, not %d", table, copied, n)
	}
	return copied, took, nil
}

// readTemplate reads the import's first ImportTemplateRows events, those after position from,
// which the bare COPY's rows repeat.
func readTemplate(ctx context.Context, conn *pgx.Conn, from int64, rows *bareRows) error {
	q, err := conn.Query(ctx, `SELECT stream_id, version, type, data::text, metadata::text FROM events
		WHERE position > $1 ORDER BY position LIMIT $2`, from, ImportTemplateRows)
	if err != nil {
		return fmt.Errorf("the import's first events: %w", err)
	}
	var r bareRow
	_, err = pgx.ForEachRow(q, []any{&r.stream, &r.version, &r.kind, &r.data, &r.metadata}, func() error {
		rows.template = append(rows.template, r)
		return nil
	})
	if err != nil {
		return fmt.Errorf("the import's first events: %w", err)
	}
	if len(rows.template) == 0 {
		return fmt.Errorf("the import wrote no events to copy")
	}
	return nil
}

// bareRow is one event's columns, as the bare table has them.
type bareRow struct {
	stream         string
	version        int64
	kind           string
	data, metadata string
}

// bareRows are n rows, the template's over and over, as pgx.CopyFromSource: the k-th time
// through, each stream id has ".k" after it, so that no two rows are one stream's same version,
// as in the log.
type bareRows struct {
	template []bareRow
	n, i     int64
	values   [5]any
}

func (r *bareRows) Next() bool {
	r.i++
	return r.i <= r.n
}

func (r *bareRows) Values() ([]any, error) {
	k := r.i - 1
	t := r.template[k%int64(len(r.template))]
	round := k / int64(len(r.template))
	r.values = [5]any{t.stream + "." + strconv.FormatInt(round, 10), t.version, t.kind, json.RawMessage(t.data), json.RawMessage(t.metadata)}
	return r.values[:], nil
}

func (r *bareRows) Err() error { return nil }
