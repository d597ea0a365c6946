package processor

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
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
