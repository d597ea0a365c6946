package notifications

import (
	"time"

	"library/internal/processor"
)

// relayState is the relay as the outbox last saw it.
type relayState struct {
	known     bool      // the relay has been tried
	downSince time.Time // zero while it is up
}

// relayAnswered: the relay replied, so it is up (even if it refused the email).
func (o *Outbox) relayAnswered() {
	o.mu.Lock()
	wasDown := !o.relay.known || !o.relay.downSince.IsZero()
	o.relay = relayState{known: true}
	o.mu.Unlock()
	if wasDown {
		o.observe(func(ob Observer) { ob.RelayUp(true) })
	}
}

// relayDown: the relay could not be reached, or takes no mail for now.
func (o *Outbox) relayDown() {
	o.mu.Lock()
	wasUp := o.relay.downSince.IsZero()
	if wasUp {
		o.relay = relayState{known: true, downSince: o.now().UTC()}
	}
	o.mu.Unlock()
	if wasUp {
		o.observe(func(ob Observer) { ob.RelayUp(false) })
	}
}

// Relay implements processor.RelayReporter, for /status.
func (o *Outbox) Relay() processor.Relay {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case !o.relay.known:
		return processor.Relay{State: "unknown"}
	case o.relay.downSince.IsZero():
		return processor.Relay{State: "up"}
	}
	since := o.relay.downSince
	return processor.Relay{State: "down", Since: &since}
}
