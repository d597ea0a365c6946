package processor

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/eventstore"
)

type publicErr struct{ text string }

func (e publicErr) Error() string      { return "relay mail.example.org refused jane@example.org" }
func (e publicErr) PublicText() string { return e.text }

// /status shows an error's public text: codes and steps, never a member, an address or a host.
func TestPublicText(t *testing.T) {
	t.Parallel()
	for err, want := range map[error]string{
		errs.E(errs.Unavailable, "the event store is unreachable"):                   "Unavailable: the event store is unreachable",
		errs.E(errs.Internal, "the checkpoint store failed"):                         "Internal: the checkpoint store failed",
		errs.E(errs.NotFound, "there is no account for member jane@example.org"):     "NotFound",
		errors.New("dial tcp mail.example.org:25: connection refused"):               "failed (the logs say why)",
		publicErr{"the relay answered RCPT with 550 (permanent)"}:                    "the relay answered RCPT with 550 (permanent)",
		fmt.Errorf("wrapped: %w", publicErr{"relayDown: connect failed (auth)"}):     "relayDown: connect failed (auth)",
		&ParkError{Reason: "member jane@example.org has no email address"}:           "parked",
		&ParkError{Reason: "member jane has no account", Public: "no email address"}: "parked: no email address",
		Pause(errs.E(errs.Unavailable, "the database is unreachable")):               "paused: Unavailable: the database is unreachable",
		Pause(errors.New("dial tcp mail.example.org:25: i/o timeout")):               "paused: failed (the logs say why)",
	} {
		got := PublicText(err)
		require.Equal(t, want, got)
		require.NotContains(t, got, "example.org")
	}
}

// An event a handler can't decode is parked at once, naming nothing in /status; but one that
// decoding says to try again (errs.Unavailable: written by a newer release than this replica's)
// is returned as it is, which pauses the processor and parks nothing.
func TestUnreadableParksButPausesForANewerRelease(t *testing.T) {
	t.Parallel()
	e := eventstore.Event{StreamID: "book-dune", Type: "BookLent"}
	var park *ParkError
	require.ErrorAs(t, Unreadable(e, errors.New("unexpected end of JSON input")), &park)
	require.Equal(t, "BookLent can't be read: unexpected end of JSON input", park.Reason)
	require.Equal(t, "parked: the event can't be read", park.PublicText())

	newer := fmt.Errorf("decode: %w", errs.E(errs.Unavailable, "a BookLent event was written by a newer release of the service"))
	err := Unreadable(e, newer)
	require.Same(t, newer, err)
	require.False(t, errors.As(err, &park))
	require.Equal(t, "Unavailable: a BookLent event was written by a newer release of the service", PublicText(err))
}
