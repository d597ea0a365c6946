package notifications

import (
	"context"
	"errors"
	"net/mail"
	"strings"
	"sync"

	"library/internal/processor"
)

// errDomainFull is why an email waits: its recipient domain has all its slots in use.
var errDomainFull = errors.New("the recipient's domain has as many emails in flight as it may")

// domainSlots counts the emails in flight to each recipient domain, and keeps, per domain, the
// emails waiting for a slot: one is told each time a slot frees.
type domainSlots struct {
	mu       sync.Mutex
	inFlight map[string]int
	waiting  map[string][]chan struct{}
}

// take takes a slot for domain when one of limit is free, and returns its release. Otherwise
// it returns a channel that is closed when a slot may be free: when one is released and this
// waiter is first in line, or when nothing is in flight to the domain any more (a waiter told
// before it may have gone).
func (s *domainSlots) take(domain string, limit int) (release func(), wait <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight == nil {
		s.inFlight, s.waiting = map[string]int{}, map[string][]chan struct{}{}
	}
	if s.inFlight[domain] >= limit {
		c := make(chan struct{})
		s.waiting[domain] = append(s.waiting[domain], c)
		return nil, c
	}
	s.inFlight[domain]++
	var once sync.Once
	return func() { once.Do(func() { s.release(domain) }) }, nil
}

func (s *domainSlots) release(domain string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight[domain]--
	w := s.waiting[domain]
	switch {
	case s.inFlight[domain] == 0:
		// Nothing in flight: whoever still waits can go. This also wakes a waiter whose
		// predecessor was told and then went away without taking the slot.
		for _, c := range w {
			close(c)
		}
		delete(s.inFlight, domain)
		delete(s.waiting, domain)
	case len(w) > 0:
		close(w[0])
		if len(w) == 1 {
			delete(s.waiting, domain)
		} else {
			s.waiting[domain] = w[1:]
		}
	}
}

// wakeAll tells every waiter to try again: the outbox is idle, or stops here.
func (s *domainSlots) wakeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for domain, w := range s.waiting {
		for _, c := range w {
			close(c)
		}
		delete(s.waiting, domain)
	}
}

// sendWithinDomain sends d's email if its recipient domain has a slot free, holding the slot
// for the conversation. If it has none, it sends nothing and returns processor.Later, with a
// channel closed when a slot frees: the processor gives the email's slot to another email and
// starts this one again then, without using up an attempt.
func (o *Outbox) sendWithinDomain(ctx context.Context, d delivery) error {
	limit := o.maxPerDomain()
	domain := recipientDomain(d.email.To)
	if limit <= 0 || domain == "" {
		return o.send(ctx, d)
	}
	release, wait := o.domains.take(domain, limit)
	if release == nil {
		return processor.Later(wait, errDomainFull)
	}
	defer release()
	return o.send(ctx, d)
}

// maxPerDomain is the mailer's limit on the emails in flight to one domain; 0 is none (the log
// mailer, which sends nothing).
func (o *Outbox) maxPerDomain() int {
	if m, ok := o.Mailer.(interface{ MaxPerDomain() int }); ok {
		return m.MaxPerDomain()
	}
	return 0
}

// recipientDomain is the domain of addr ("Name <a@Example.org>" or "a@example.org"), in lower
// case; "" when addr is not an address (the mailer refuses it for good).
func recipientDomain(addr string) string {
	if parsed, err := mail.ParseAddress(addr); err == nil {
		addr = parsed.Address
	}
	i := strings.LastIndexByte(addr, '@')
	if i < 0 || i == len(addr)-1 {
		return ""
	}
	return strings.ToLower(strings.TrimSuffix(addr[i+1:], ">"))
}
