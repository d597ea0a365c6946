package notifications

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/smtpclient"
	"library/internal/testkit/smtptest"
)

// outboxEnv is an outbox in memory, sending to a real SMTP server.
type outboxEnv struct {
	store    *eventstore.Memory
	books    *books.Service
	accounts *accounts.Service
	accepted *MemoryAcceptedEmails
	srv      *smtptest.Server
	seen     *seenEmails
}

func newOutboxEnv(t *testing.T) outboxEnv {
	t.Helper()
	store := eventstore.NewMemory(nil)
	env := outboxEnv{
		store:    store,
		books:    books.NewService(store, aggregate.Options{}, time.Now, books.Policy{LoanPeriod: 14 * 24 * time.Hour, MaxRenewals: 2}, nil),
		accounts: accounts.NewService(store, aggregate.Options{}),
		accepted: NewMemoryAcceptedEmails(),
		srv:      smtptest.Start(t),
		seen:     &seenEmails{},
	}
	return env
}

// outbox is a new outbox on the env's record, as a new holder of the lease would make it.
func (env outboxEnv) outbox(t *testing.T) *Outbox {
	return &Outbox{Mailer: newTestMailer(t, env.srv), Facts: serviceFacts{env.books, env.accounts}, Accepted: env.accepted,
		Installation: env.store.Installation, From: "library@library.test", Observer: env.seen}
}

// lend lends a new book to a member with the given address and returns the BookLent event.
func (env outboxEnv) lend(t *testing.T, id, email string) eventstore.Event {
	t.Helper()
	ctx := t.Context()
	_, err := env.accounts.SetContact(ctx, "m-"+id, accounts.SetContact{Name: "Member " + id, Email: email}, aggregate.Origin{})
	require.NoError(t, err)
	_, err = env.books.Add(ctx, books.AddBook{ID: id, Title: "Title " + id, Author: "Author"}, aggregate.Origin{})
	require.NoError(t, err)
	_, err = env.books.Lend(ctx, id, books.LendBook{LoanID: "loan-" + id, MemberID: "m-" + id}, aggregate.Origin{})
	require.NoError(t, err)
	events, err := env.store.ReadStream(ctx, books.Type().StreamID(id), 1)
	require.NoError(t, err)
	require.Len(t, events, 1)
	return events[0]
}

// seenEmails is an Observer that counts.
type seenEmails struct {
	mu                                 sync.Mutex
	accepted, skipped, relayDown, upAt int
	deferred, parked                   int
	failed                             []FailureClass
}

func (s *seenEmails) EmailAccepted(time.Duration) { s.mu.Lock(); s.accepted++; s.mu.Unlock() }
func (s *seenEmails) EmailSkipped()               { s.mu.Lock(); s.skipped++; s.mu.Unlock() }
func (s *seenEmails) EmailFailed(c FailureClass, _ string) {
	s.mu.Lock()
	s.failed = append(s.failed, c)
	s.mu.Unlock()
}
func (s *seenEmails) EmailDeferred()     { s.mu.Lock(); s.deferred++; s.mu.Unlock() }
func (s *seenEmails) EmailParked()       { s.mu.Lock(); s.parked++; s.mu.Unlock() }
func (s *seenEmails) EmailsInFlight(int) {}
func (s *seenEmails) RelayUp(up bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if up {
		s.upAt++
	} else {
		s.relayDown++
	}
}

// The relay's acceptance is recorded at once, with the loan and the attempt, and a holder that
// handles the loan again (after a takeover) sends nothing.
func TestOutboxRecordsWhatTheRelayAccepted(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	lent := env.lend(t, "dune", "reader@example.org")
	first := env.outbox(t)
	require.NoError(t, first.Handle(handling(t), lent))
	msgs := env.srv.WaitForMessages(t, 1, waitFor)
	id := msgs[0].MessageID
	a, ok := env.accepted.Get(id)
	require.True(t, ok, "recorded under its Message-ID %s", id)
	require.Equal(t, lent.Position, a.Position)
	require.Equal(t, "loan-dune", a.LoanID)
	require.Equal(t, 1, a.Attempts)
	require.WithinDuration(t, time.Now(), a.AcceptedAt, time.Minute)

	again := env.outbox(t) // the next holder
	require.NoError(t, again.Handle(handling(t), lent))
	require.NoError(t, first.Handle(handling(t), lent))
	require.Len(t, env.srv.Messages(), 1, "not sent again")
	require.Equal(t, 2, env.seen.skipped)
	require.Equal(t, 1, env.seen.accepted)
}

// failingRecord is a record of accepted emails whose database is down for a while.
type failingRecord struct {
	*MemoryAcceptedEmails
	mu   sync.Mutex
	down bool
}

func (f *failingRecord) Record(ctx context.Context, a Acceptance) error {
	f.mu.Lock()
	down := f.down
	f.mu.Unlock()
	if down {
		return errs.E(errs.Unavailable, "the record of accepted emails is unavailable")
	}
	return f.MemoryAcceptedEmails.Record(ctx, a)
}

// An email the relay accepted but that could not be recorded is not sent again by the replica
// that sent it: the failure pauses the outbox (the database is down), and the next attempt
// records it instead of sending it.
func TestOutboxAcceptedButNotRecorded(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	record := &failingRecord{MemoryAcceptedEmails: env.accepted, down: true}
	o := env.outbox(t)
	o.Accepted = record
	lent := env.lend(t, "dune", "reader@example.org")
	err := o.Handle(handling(t), lent)
	require.True(t, errs.Is(err, errs.Unavailable), "the processor pauses: %v", err)
	require.Len(t, env.srv.WaitForMessages(t, 1, waitFor), 1)

	record.mu.Lock()
	record.down = false
	record.mu.Unlock()
	require.NoError(t, o.Handle(handling(t), lent))
	require.Len(t, env.srv.Messages(), 1, "recorded, not sent again")
	ids, err := o.messageIDs(t.Context())
	require.NoError(t, err)
	_, ok := env.accepted.Get(ids.For(lent))
	require.True(t, ok)
}

// The relay's answers become the processor's outcomes: a 550 parks, a 452 defers, a 421
// pauses, and the relay's state follows.
func TestOutboxSortsTheRelaysAnswers(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	o := env.outbox(t)
	require.Equal(t, processor.Relay{State: "unknown"}, o.Relay())

	env.srv.RefuseRecipient("gone@example.org", 550, "no such user")
	err := o.Handle(handling(t), env.lend(t, "a", "gone@example.org"))
	var park *processor.ParkError
	require.ErrorAs(t, err, &park)
	require.Contains(t, park.Reason, "550")
	require.Equal(t, "up", o.Relay().State, "it answered")

	env.srv.RefuseRecipient("full@example.org", 452, "mailbox full")
	err = o.Handle(handling(t), env.lend(t, "b", "full@example.org"))
	require.Error(t, err)
	require.False(t, errors.As(err, &park))
	var pause *processor.PauseError
	require.False(t, errors.As(err, &pause), "a full mailbox is this email's trouble only")

	env.srv.RefuseRecipient("busy@example.org", 421, "closing")
	err = o.Handle(handling(t), env.lend(t, "c", "busy@example.org"))
	require.ErrorAs(t, err, &pause)
	relay := o.Relay()
	require.Equal(t, "down", relay.State)
	require.NotNil(t, relay.Since)

	require.NoError(t, o.Handle(handling(t), env.lend(t, "d", "fine@example.org")))
	require.Equal(t, processor.Relay{State: "up"}, o.Relay())
	require.Equal(t, []FailureClass{Permanent, Temporary, RelayDown}, env.seen.failed)
	require.Equal(t, 1, env.seen.relayDown)
}

// Message-IDs: stable for an event, different for another installation, another position, or
// an event at the same position recorded at another time (a restored log written on since).
func TestMessageIDs(t *testing.T) {
	t.Parallel()
	recorded := time.Date(2026, 12, 3, 9, 0, 0, 123456000, time.UTC)
	e := eventstore.Event{Position: 42, RecordedAt: recorded}
	ids := NewMessageIDs("5f0c5e2e-1111-4222-8333-944455556666", "Library <desk@library.example.org>")
	id := ids.For(e)
	// The time it was recorded is 1796288400123456 microseconds, hoqbhyn39c in base 36.
	require.Equal(t, "<notifications.42.hoqbhyn39c.5f0c5e2e-1111-4222-8333-944455556666@library.example.org>", id)
	require.Equal(t, id, ids.For(e), "stable")
	require.True(t, smtpclient.ValidMessageID(id[1:len(id)-1]))

	other := NewMessageIDs("00000000-1111-4222-8333-944455556666", "desk@library.example.org")
	require.NotEqual(t, id, other.For(e), "another installation")
	require.NotEqual(t, id, ids.For(eventstore.Event{Position: 43, RecordedAt: recorded}))
	require.NotEqual(t, id, ids.For(eventstore.Event{Position: 42, RecordedAt: recorded.Add(time.Microsecond)}))

	require.Equal(t, "localhost", NewMessageIDs("i", "not an address").Domain)
	require.Equal(t, "localhost", NewMessageIDs("i", "desk@bücher.example").Domain, "not ASCII: can't go in the header as it is")
}

// The outbox reads only the book events of its types: the same type in another stream is none
// of its business, a book event it can't read is parked, naming nothing, and one written by a
// newer release pauses it.
func TestOutboxReadsOnlyBookEventsAndParksOneItCannotRead(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	o := env.outbox(t)
	lent := books.BookLent{}.EventType()
	other := eventstore.Event{StreamID: accounts.Type().StreamID("m1"), Version: 1, Position: 1, Type: lent,
		Data: []byte(`{"loanId":"loan-x","memberId":"m1"}`), RecordedAt: time.Now()}
	require.NoError(t, o.Handle(handling(t), other))

	unreadable := eventstore.Event{StreamID: books.Type().StreamID("dune"), Version: 2, Position: 2, Type: lent,
		Data: []byte(`{"loanId":`), RecordedAt: time.Now()}
	var park *processor.ParkError
	require.ErrorAs(t, o.Handle(handling(t), unreadable), &park)
	require.Equal(t, "the event can't be read", park.Public)

	newer := unreadable
	newer.Data, newer.Metadata.Schema = []byte(`{"loanId":"loan-x","memberId":"m1"}`), 2
	err := o.Handle(handling(t), newer)
	require.True(t, errs.Is(err, errs.Unavailable), "written by a newer release: the outbox pauses, to be read by one: %v", err)
	require.False(t, errors.As(err, &park), "and parks nothing")
	require.Empty(t, env.srv.Messages(), "nothing sent")
}
