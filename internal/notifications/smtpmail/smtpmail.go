// Package smtpmail is the outbox's Mailer over the SMTP client: it hands notifications' emails
// to smtpclient.Client and tells its failures to the outbox as notifications.SendError, class
// for class, with the same texts, so that what the outbox parks, defers or pauses, and what
// /status and the metrics show, is what smtpclient sorted. It keeps notifications and
// smtpclient apart: neither imports the other.
package smtpmail

import (
	"context"

	"library/internal/notifications"
	"library/internal/smtpclient"
)

// Mailer sends the outbox's emails through an SMTP client.
type Mailer struct{ client *smtpclient.Client }

var _ notifications.Mailer = Mailer{}

// New returns the Mailer that sends through client.
func New(client *smtpclient.Client) Mailer { return Mailer{client: client} }

// Send implements notifications.Mailer: a failure smtpclient sorted is a
// *notifications.SendError wrapping its *smtpclient.SendError; any other error (ctx's) is
// returned as it is.
func (m Mailer) Send(ctx context.Context, e notifications.Email) error {
	err := m.client.Send(ctx, smtpclient.Email{MessageID: e.MessageID, From: e.From, To: e.To, Subject: e.Subject, Body: e.Body})
	se, ok := smtpclient.IsSendError(err)
	if !ok {
		return err
	}
	return &notifications.SendError{Class: class(se.Class), Code: se.Code, Reason: se.Reason,
		Text: se.Error(), Public: se.PublicText(), Err: se}
}

// Close implements notifications.Mailer: it closes the client's idle connections.
func (m Mailer) Close() error { return m.client.Close() }

// MaxPerDomain is the client's limit on the emails in flight to one recipient domain
// (SMTP_MAX_PER_DOMAIN), which the outbox keeps to.
func (m Mailer) MaxPerDomain() int { return m.client.MaxPerDomain() }

// class is smtpclient's class of failure as the outbox names it.
func class(c smtpclient.FailureClass) notifications.FailureClass {
	switch c {
	case smtpclient.Permanent:
		return notifications.Permanent
	case smtpclient.RelayDown:
		return notifications.RelayDown
	default:
		return notifications.Temporary
	}
}
