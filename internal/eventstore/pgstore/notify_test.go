package pgstore

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/storetest"
)

// An append sends a notification on the log's channel, which other processes listen on: a
// session that is listening before the append gets it, whatever else wakes readers in this
// process. Its payload names the types appended, so that a reader of other types sleeps on.
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
	_, err = writer.Append(ctx, "book-dune", 0, storetest.Events("BookAdded", "BookLent", "BookAdded"))
	require.NoError(t, err)

	waitCtx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	n, err := listener.WaitForNotification(waitCtx)
	require.NoError(t, err, "no notification within 10s of the append")
	require.Equal(t, notifyChannel, n.Channel)
	require.Equal(t, "BookAdded,BookLent", n.Payload)

	// Appends to several streams at once are told by the notifier, after their commit.
	_, err = writer.AppendAll(ctx, []eventstore.StreamAppend{
		{StreamID: "book-emma", Events: storetest.Events("BookAdded")},
		{StreamID: "account-ann", Events: storetest.Events("LoanOpened")},
	})
	require.NoError(t, err)
	n, err = listener.WaitForNotification(waitCtx)
	require.NoError(t, err, "no notification within 10s of the appends")
	require.Equal(t, "BookAdded,LoanOpened", n.Payload)
}

// A store told which types other processes read (TellOnly) sends no notification for an
// append of none of them, alone or with others, and names only those it reads: the first
// notification the listener gets after appends of a type no one reads is the one for the type
// it reads.
func TestAppendsOfTypesNoOneReadsAreNotTold(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	url := pgtest.NewDatabase(t)
	listener, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer func() { _ = listener.Close(context.Background()) }()
	_, err = listener.Exec(ctx, "LISTEN "+notifyChannel)
	require.NoError(t, err)

	writer := newPostgres(t, pgtest.Connect(t, url))
	writer.TellOnly([]string{"BookLent", "BookReturned"})
	_, err = writer.Append(ctx, "account-ann", 0, storetest.Events("PaymentReceived")) // alone: in its statement
	require.NoError(t, err)
	_, err = writer.AppendAll(ctx, []eventstore.StreamAppend{ // by the notifier
		{StreamID: "account-bob", Events: storetest.Events("PaymentReceived")},
		{StreamID: "account-cy", Events: storetest.Events("FineCharged")},
	})
	require.NoError(t, err)
	_, err = writer.Append(ctx, "book-dune", 0, storetest.Events("BookAdded", "BookLent"))
	require.NoError(t, err)

	n, err := listener.WaitForNotification(ctx)
	require.NoError(t, err, "no notification within 20s of the appends")
	require.Equal(t, "BookLent", n.Payload, "the first notification is the lend's, and names only what is read")
}

// A payload that would not fit, or types that a comma would not keep apart, wake every reader.
func TestNotificationPayloads(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"A", "B"}, typesOf(payloadOf([]string{"A", "B"})))
	require.Empty(t, payloadOf([]string{"A,B"}), "a comma in a type")
	require.Nil(t, typesOf(""), "no payload: every type")
	long := make([]string, 0, 1000)
	for i := range 1000 {
		long = append(long, fmt.Sprintf("Type%d", i))
	}
	require.Empty(t, payloadOf(long), "too long for a notification")
}

// Readers in another process wake for the types they read, and sleep through others.
func TestListenerWakesReadersOfTheTypesAppended(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	reader := newPostgres(t, pgtest.Connect(t, url))
	writer := newPostgres(t, pgtest.Connect(t, url))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	readsLent := reader.Subscribe(ctx, "BookLent")
	readsAll := reader.Subscribe(ctx)
	// The listener wakes every reader once it listens: wait for that, then start from quiet.
	<-readsAll
	<-readsLent

	_, err := writer.Append(ctx, "account-ann", 0, storetest.Events("PaymentReceived"))
	require.NoError(t, err)
	select {
	case <-readsAll:
	case <-time.After(10 * time.Second):
		t.Fatal("a reader of every type was not woken by another process's append")
	}
	select {
	case <-readsLent:
		t.Fatal("a reader of BookLent was woken by a PaymentReceived")
	default:
	}
	_, err = writer.Append(ctx, "book-dune", 0, storetest.Events("BookLent"))
	require.NoError(t, err)
	select {
	case <-readsLent:
	case <-time.After(10 * time.Second):
		t.Fatal("a reader of BookLent was not woken by another process's BookLent")
	}
}
