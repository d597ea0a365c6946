package devpay

import (
	"slices"
	"time"

	"library/internal/devpay/hooks"
	"library/internal/devpay/wire"
)

// The states of an event.
const (
	// EventSent: handed to the deliveries, to every webhook URL there was then.
	EventSent = "sent"
	// EventHeld: held back by Hold, until Release or Drop.
	EventHeld = "held"
	// EventDropped: dropped by Drop, never sent: a lost webhook.
	EventDropped = "dropped"
)

// Event is an event devpay made.
type Event struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	// SessionID is the session it is about: the refunded one for a refund.
	SessionID string    `json:"session"`
	Created   time.Time `json:"created"`
	State     string    `json:"state"`
	// Payload is the body each delivery sends.
	Payload []byte `json:"-"`
}

// Order is the order in which Release sends held events.
type Order int

// The orders of Release.
const (
	// InOrder sends held events in the order they were made.
	InOrder Order = iota
	// Reversed sends the newest first.
	Reversed
)

// emit makes an event and sends it, or holds it back. s.mu is held.
func (s *Server) emit(typ, sessionID string, object []byte, req wire.EventRequest) {
	now := s.now()
	ev := &Event{ID: newID("evt_"), Type: typ, SessionID: sessionID, Created: now}
	ev.Payload = wire.EventPayload(ev.ID, typ, now.Unix(), object, len(s.hooks.URLs()), req)
	s.events = append(s.events, ev)
	if s.holdAll || s.holds[sessionID] {
		ev.State = EventHeld
		s.held = append(s.held, ev)
		return
	}
	s.send(ev)
}

// send hands an event to the deliveries. s.mu is held.
func (s *Server) send(ev *Event) {
	ev.State = EventSent
	s.hooks.Send(hooks.Job{EventID: ev.ID, EventType: ev.Type, SessionID: ev.SessionID, Payload: ev.Payload}, s.copies, s.together)
}

// Hold holds back the events of a session from now on, or of every session if sessionID is
// "", until Release or Drop.
func (s *Server) Hold(sessionID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sessionID == "" {
		s.holdAll = true
		return
	}
	s.holds[sessionID] = true
}

// Release ends the hold of a session (or, with "", every hold) and sends the events it held
// back, in the order asked. It says how many it sent.
func (s *Server) Release(sessionID string, order Order) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	released := s.unhold(sessionID)
	if order == Reversed {
		slices.Reverse(released)
	}
	for _, ev := range released {
		s.send(ev)
	}
	return len(released)
}

// Drop ends the hold of a session (or, with "", every hold) and forgets the events it held
// back: they are never sent, as a webhook lost for good. It says how many it dropped.
func (s *Server) Drop(sessionID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	dropped := s.unhold(sessionID)
	for _, ev := range dropped {
		ev.State = EventDropped
	}
	return len(dropped)
}

// unhold ends a hold and takes its held events out of s.held. s.mu is held.
func (s *Server) unhold(sessionID string) []*Event {
	if sessionID == "" {
		s.holdAll = false
		clear(s.holds)
	} else {
		delete(s.holds, sessionID)
	}
	var taken, kept []*Event
	for _, ev := range s.held {
		if sessionID == "" || ev.SessionID == sessionID {
			taken = append(taken, ev)
		} else {
			kept = append(kept, ev)
		}
	}
	s.held = kept
	return taken
}

// SetCopies makes each event from now on sent n times (at least once) to each webhook URL,
// with the same id, as Stripe may send one event more than once. With together, every copy to
// every URL is sent at once, each on its own, rather than one after the other in order.
func (s *Server) SetCopies(n int, together bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.copies, s.together = max(1, n), together
}

// Events are the events made so far, oldest first.
func (s *Server) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Event, len(s.events))
	for i, ev := range s.events {
		out[i] = *ev
	}
	return out
}

// Deliveries are the delivery attempts made so far, in the order they ended.
func (s *Server) Deliveries() []Delivery { return s.hooks.Deliveries() }

// Delivery is one attempt to deliver an event to a webhook URL.
type Delivery = hooks.Delivery

// Sign is the Stripe-Signature header of a payload signed at a time with a webhook secret.
func Sign(payload []byte, secret string, at time.Time) string { return hooks.Sign(payload, secret, at) }

// Pending is how many deliveries are waiting or under way (held events are not counted).
func (s *Server) Pending() int { return s.hooks.Pending() }

// SetWebhookURLs replaces the URLs that receive events. A URL kept keeps its deliveries; a URL
// removed loses those it still had.
func (s *Server) SetWebhookURLs(urls []string) error { return s.hooks.SetURLs(urls) }

// WebhookURLs are the URLs that receive events.
func (s *Server) WebhookURLs() []string { return s.hooks.URLs() }
