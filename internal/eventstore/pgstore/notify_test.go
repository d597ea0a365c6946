package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"library/internal/testkit/pgtest"
	"library/internal/testkit/storetest"
)

// An append sends a notification on the log's channel, which other processes listen on: a
// session that is listening before the append gets it, whatever else wakes readers in this
// process.
func TestPostgresAppendNotifiesListeners(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	url := pgtest.NewDatabase(t)
	listener, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer func() { _ = listener.Close(context.Background()) }()
	_, err = listener.Exec(ctx, "LISTEN "+notifyChannel) // listening once this returns
	require.NoError(t, err)

	writer := newPostgres(t, pgtest.Connect(t, url))
	_, err = writer.Append(ctx, "book-dune", 0, storetest.Events("BookAdded"))
	require.NoError(t, err)

	waitCtx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	n, err := listener.WaitForNotification(waitCtx)
	require.NoError(t, err, "no notification within 10s of the append")
	require.Equal(t, notifyChannel, n.Channel)
}
