package notifications

import (
	"context"
	"errors"
	"net/mail"
	"strings"

	"library/internal/processor"
)

// errDomainFull is why an email waits: its recipient domain has all its slots in use.
var errDomainFull = errors.New("the recipient's domain has as many emails in flight as it may")

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
	release, wait := o.domains.Take(domain, limit)
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
