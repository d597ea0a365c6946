package notifications

import (
	"context"
	"errors"
	"fmt"
	"time"

	"library/internal/errs"
	"library/internal/processor"
)

// How long an email waits for its member's address, and how often it looks.
const (
	// DefaultAddressWait is EMAIL_ADDRESS_WAIT's default: three days from the loan (or the
	// reminder's due time), time for a new member to sign in for the first time.
	DefaultAddressWait = 72 * time.Hour
	// DefaultAddressPoll is how often a waiting email looks for the address again: an address
	// given is used within a minute, for one account lookup a minute per waiting email.
	DefaultAddressPoll = time.Minute
)

// noAddressError says why an email can't go yet: its member has no account yet, or has given
// no address. The member may sign in, or a librarian give one, at any time.
type noAddressError struct{ reason string }

func (e *noAddressError) Error() string { return e.reason }

// PublicText implements processor.PublicTexter: it names nobody.
func (*noAddressError) PublicText() string { return "no email address" }

// noAddress returns err's *noAddressError, if it is one.
func noAddress(err error) (*noAddressError, bool) {
	var why *noAddressError
	ok := errors.As(err, &why)
	return why, ok
}

// recipient returns where a member's email goes: a *noAddressError when it can't go yet, a
// ParkError when it never will (the member was erased).
func (o *Outbox) recipient(ctx context.Context, memberID string) (Recipient, error) {
	account, err := o.Facts.Recipient(ctx, memberID)
	switch {
	case errs.Is(err, errs.NotFound):
		return Recipient{}, &noAddressError{reason: "the member has no account yet, so no email address"}
	case err != nil:
		return Recipient{}, err
	case account.Erased:
		return Recipient{}, &processor.ParkError{Reason: processor.ErasedReason, Public: "erased"}
	case account.Email == "":
		return Recipient{}, &noAddressError{reason: "the member has no email address yet"}
	}
	return account, nil
}

// addressLeft is how much longer an email due at due may wait for its member's address: zero
// or less once AddressWait has passed since due.
func (o *Outbox) addressLeft(due time.Time) time.Duration {
	return due.Add(o.addressWait()).Sub(o.now())
}

// nextAddressLook is how long an email that may wait left more looks for the address again.
func (o *Outbox) nextAddressLook(left time.Duration) time.Duration {
	poll := o.AddressPoll
	if poll <= 0 {
		poll = DefaultAddressPoll
	}
	return min(poll, left)
}

// waitForAddress is what becomes of the loan email of an event recorded at recorded, whose
// member has no address yet: it waits (processor.Wait: deferred, using up no attempt) and looks
// again every AddressPoll, until AddressWait has passed since the event; then it is parked,
// for retry-parked to send once the member has an address.
func (o *Outbox) waitForAddress(why *noAddressError, recorded time.Time) error {
	left := o.addressLeft(recorded)
	if left <= 0 {
		return &processor.ParkError{Reason: fmt.Sprintf("%s, %s after the loan", why.reason, o.addressWait()), Public: "no email address"}
	}
	return processor.Wait(o.nextAddressLook(left), why)
}

func (o *Outbox) addressWait() time.Duration {
	if o.AddressWait <= 0 {
		return DefaultAddressWait
	}
	return o.AddressWait
}
