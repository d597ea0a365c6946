package apart

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// bareCopy measures PostgreSQL's own pace beside the import's: after a VACUUM ANALYZE of the
// database (what autovacuum would do soon after an import, done now so that it does not run
// beside the COPY) and a CHECKPOINT, one COPY of res.Events rows into a bare table, the rows
// being the import's first ImportTemplateRows events (those after position from) again and
// again. Then the tables' sizes, and the bare table dropped.
func bareCopy(ctx context.Context, conn *pgx.Conn, from int64, res *ImportResult) error {
	rows := &bareRows{n: res.Events}
	if err := readTemplate(ctx, conn, from, rows); err != nil {
		return err
	}
	for _, statement := range []string{
		`VACUUM ANALYZE`,
		`CREATE TABLE ` + bareTable + ` (stream_id text, version bigint, type text, data jsonb, metadata jsonb)`,
	} {
		if _, err := conn.Exec(ctx, statement); err != nil {
			return fmt.Errorf("%s: %w", statement, err)
		}
	}
	res.Checkpointed = checkpoint(ctx, conn) && res.Checkpointed
	start := time.Now()
	n, err := conn.CopyFrom(ctx, pgx.Identifier{bareTable}, []string{"stream_id", "version", "type", "data", "metadata"}, rows)
	res.CopyWall = time.Since(start)
	if err != nil {
		return fmt.Errorf("the bare COPY: %w", err)
	}
	if n != res.Events {
		return fmt.Errorf("the bare COPY wrote %d rows, not %d", n, res.Events)
	}
	res.CopyRows = n
	err = conn.QueryRow(ctx, `SELECT pg_table_size('events'), pg_indexes_size('events'), pg_table_size('`+bareTable+`')`).
		Scan(&res.EventsTable, &res.EventsIndexes, &res.BareTable)
	if err != nil {
		return fmt.Errorf("the tables' sizes: %w", err)
	}
	if _, err := conn.Exec(ctx, `DROP TABLE `+bareTable); err != nil {
		return fmt.Errorf("dropping the bare table: %w", err)
	}
	return nil
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
