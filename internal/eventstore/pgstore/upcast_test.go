package pgstore

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/eventstore"
	"library/internal/testkit/aggregatetest"
	"library/internal/testkit/pgtest"
)

// Upcasters run on every path a stored event is read by, on PostgreSQL: its reads of the
// metadata's schema version, its snapshots' tails.
func TestPostgresUpcasting(t *testing.T) {
	t.Parallel()
	aggregatetest.Upcasting(t, func(t *testing.T) aggregate.Log { return newPostgres(t, pgtest.NewPool(t)) })
}

// The metadata of a version-1 event is stored as it was before versions were recorded, with no
// "schema" member; a later version's is stored with it.
func TestPostgresStoresASchemaVersionOnlyAboveOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	s := newPostgres(t, pool)
	meta := eventstore.Metadata{CommandID: "k", Command: "stock", Actor: eventstore.Actor{Role: "open"}}
	later := meta
	later.Schema = 3
	_, err := s.Append(ctx, "shelf-a", 0, []eventstore.NewEvent{
		{Type: "Emptied", Data: json.RawMessage(`{}`), Metadata: meta},
		{Type: "Stocked", Data: json.RawMessage(`{"count":1,"shelf":"a"}`), Metadata: later},
	})
	require.NoError(t, err)
	rows, err := pool.Query(ctx, `SELECT metadata::text FROM events WHERE stream_id = 'shelf-a' ORDER BY version`)
	require.NoError(t, err)
	var stored []string
	for rows.Next() {
		var m string
		require.NoError(t, rows.Scan(&m))
		stored = append(stored, m)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{`{"actor": {"role": "open"}, "command": "stock", "commandId": "k"}`,
		`{"actor": {"role": "open"}, "schema": 3, "command": "stock", "commandId": "k"}`}, stored)
}
