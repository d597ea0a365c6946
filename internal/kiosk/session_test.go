package kiosk_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/auth"
	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/holds"
	"library/internal/kiosk"
	"library/internal/loans"
	"library/internal/processor/memdriver"
	"library/internal/reservations"
	"library/internal/shelves"
	"library/internal/sip2"
	"library/internal/terminals"
	"library/internal/testkit/sipclient"
	"library/internal/titles"
)

// listener is a kiosk server with a terminal, on services on a memory log with no member or
// book, and empty views: enough for the session's rules, and for any message to be answered.
type listener struct {
	addr, password string
}

func serveSessions(t testing.TB, o kiosk.Options) listener {
	t.Helper()
	log := eventstore.NewMemory(nil)
	opts := aggregate.Options{FingerprintKey: log.FingerprintKey}
	ts := terminals.NewService(log, opts, time.Now)
	password, err := ts.Add(context.Background(), "kiosk-1", aggregate.Origin{})
	require.NoError(t, err)
	members := accounts.NewService(log, opts).WithPINs(accounts.PINPolicy{})
	titleService := titles.NewService(log, opts, time.Now, reservations.NewService(log, opts)).WithHolds(titles.HoldPolicy{MaxQueue: 5}, members)
	bookService := books.NewService(log, opts, time.Now, books.Policy{LoanPeriod: time.Hour, MaxRenewals: 2,
		Holds: books.HoldPolicy{MaxQueue: 5, Pickup: time.Hour}}, members).WithTitles(shelves.Shelves{Titles: titleService})
	services := kiosk.Services{Terminals: ts, Members: members, Books: bookService, Titles: titleService,
		Loans: loans.NewMemory(memdriver.NewCheckpoints(time.Now)), Holds: holds.NewMemory(memdriver.NewCheckpoints(time.Now))}
	o.Institution, o.Currency, o.Now, o.Rules = "library", "EUR", time.Now, auth.NewTable(auth.Rules())
	o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if o.IdleTimeout == 0 {
		o.IdleTimeout = time.Minute
	}
	if o.MaxConnections == 0 {
		o.MaxConnections = 8
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- kiosk.New(services, o).Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return listener{addr: l.Addr().String(), password: password}
}

// answerWait bounds each exchange: long, since a login hashes a password under the race
// detector on a machine busy with other tests.
const answerWait = 30 * time.Second

func dial(t *testing.T, addr string) *sipclient.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), answerWait)
	defer cancel()
	c, err := sipclient.Dial(ctx, addr, sip2.Framing{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func send(t *testing.T, c *sipclient.Client, m sip2.Message) (sip2.Message, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), answerWait)
	defer cancel()
	return c.Send(ctx, m)
}

func raw(t *testing.T, c *sipclient.Client, line string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), answerWait)
	defer cancel()
	answer, err := c.SendRaw(ctx, []byte(line))
	return string(answer), err
}

// Before a login, only status is answered; anything else closes the connection.
func TestOnlyStatusBeforeALogin(t *testing.T) {
	t.Parallel()
	l := serveSessions(t, kiosk.Options{})
	c := dial(t, l.addr)
	status, err := send(t, c, sipclient.Status())
	require.NoError(t, err)
	assert.Equal(t, "98", status.Code)
	_, err = send(t, c, sipclient.ItemInformation("library", "31234000000017", time.Now()))
	require.Error(t, err, "the connection is closed, nothing answered")
}

// A wrong password is refused, and three close the connection; the right one logs in.
func TestLogin(t *testing.T) {
	t.Parallel()
	l := serveSessions(t, kiosk.Options{})
	c := dial(t, l.addr)
	for range 2 {
		no, err := send(t, c, sipclient.Login("kiosk-1", "wrong"))
		require.NoError(t, err)
		assert.Equal(t, "0", no.FixedField(sip2.OK))
	}
	no, err := send(t, c, sipclient.Login("nobody", l.password))
	require.NoError(t, err, "the third refusal is answered")
	assert.Equal(t, "0", no.FixedField(sip2.OK))
	_, err = send(t, c, sipclient.Status())
	require.Error(t, err, "then the connection is closed")

	c = dial(t, l.addr)
	yes, err := send(t, c, sipclient.Login("kiosk-1", l.password))
	require.NoError(t, err)
	assert.Equal(t, "1", yes.FixedField(sip2.OK))
}

// A message whose checksum is wrong gets 96 and does nothing; the same message with its right
// checksum is answered; 97 gets the last answer again.
func TestErrorDetection(t *testing.T) {
	t.Parallel()
	l := serveSessions(t, kiosk.Options{})
	c := dial(t, l.addr)
	answer, err := raw(t, c, "9900302.00AY1AZ0000")
	require.NoError(t, err)
	assert.Equal(t, "96", answer[:2], "a wrong checksum: please resend")
	answer, err = raw(t, c, "9900302.00AY1AZFCA5")
	require.NoError(t, err)
	assert.Equal(t, "98", answer[:2], answer)
	first, err := sip2.Parse([]byte(answer))
	require.NoError(t, err)
	assert.Equal(t, 1, first.Seq, "the answer carries the request's sequence number")
	again, err := raw(t, c, "97")
	require.NoError(t, err)
	assert.Equal(t, answer, again, "97: the last answer again")
	alone, err := raw(t, c, "9900302.00AZFD70")
	require.NoError(t, err)
	require.Regexp(t, `^98.*AZ[0-9A-F]{4}$`, alone, "a checksum without a sequence number: a checksum back")
	parsed, err := sip2.Parse([]byte(alone))
	require.NoError(t, err, "the checksum answered is right")
	assert.False(t, parsed.HasSeq)
	garbage, err := raw(t, c, "zz|||")
	require.NoError(t, err)
	assert.Equal(t, "96", garbage[:2], "a message that does not parse: please resend")
}

// A connection that sends nothing for the idle timeout is closed.
func TestAnIdleConnectionIsClosed(t *testing.T) {
	t.Parallel()
	l := serveSessions(t, kiosk.Options{IdleTimeout: 200 * time.Millisecond})
	c := dial(t, l.addr)
	ctx, cancel := context.WithTimeout(context.Background(), answerWait)
	defer cancel()
	_, err := c.SendRaw(ctx, nil) // an empty line: nothing to answer; the server's read times out
	require.Error(t, err)
	require.False(t, sipclient.IsTimeout(err), "closed by the server, not by the test's deadline: %v", err)
}

// One connection more than MaxConnections is closed at once; the others go on.
func TestMaxConnections(t *testing.T) {
	t.Parallel()
	l := serveSessions(t, kiosk.Options{MaxConnections: 2})
	first, second := dial(t, l.addr), dial(t, l.addr)
	for _, c := range []*sipclient.Client{first, second} {
		_, err := send(t, c, sipclient.Status())
		require.NoError(t, err)
	}
	_, err := send(t, dial(t, l.addr), sipclient.Status())
	require.Error(t, err, "the third is closed")
	_, err = send(t, first, sipclient.Status())
	require.NoError(t, err)
}
