package notifications

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/books"
	"library/internal/processor"
	"library/internal/smtpclient"
	"library/internal/testkit/smtptest"
)

// waitFor bounds every wait for the SMTP server in these tests.
const waitFor = 10 * time.Second

// serviceFacts answers the outbox from the services, as emailfacts.Services does (which the
// tests of this package can't import: it imports the package).
type serviceFacts struct {
	books    *books.Service
	accounts *accounts.Service
}

func (s serviceFacts) BookAt(ctx context.Context, bookID string, version int64) (Book, error) {
	book, _, err := s.books.GetAtLeast(ctx, bookID, version)
	return Book{Title: book.Title, Author: book.Author}, err
}

func (s serviceFacts) Current(ctx context.Context, bookID string) (Book, error) {
	book, _, err := s.books.Get(ctx, bookID)
	out := Book{Title: book.Title, Author: book.Author}
	if book.Loan != nil {
		out.Loan = &Loan{ID: book.Loan.LoanID, MemberID: book.Loan.MemberID, DueAt: book.Loan.DueAt}
	}
	return out, err
}

// handling is a context as the processor hands a TimerHandler's Handle and Fire: one that
// records the timers they schedule.
func handling(t *testing.T) context.Context {
	ctx, _ := processor.RecordTimers(t.Context())
	return ctx
}

func (s serviceFacts) Recipient(ctx context.Context, memberID string) (Recipient, error) {
	account, _, err := s.accounts.Get(ctx, memberID)
	return Recipient{Name: account.Name, Email: account.Email, Erased: account.Erased}, err
}

// newTestMailer returns an SMTP client configured from srv's URL, as SMTP_URL would configure it.
func newTestMailer(t *testing.T, srv *smtptest.Server) smtpMailer {
	t.Helper()
	cfg, err := smtpclient.ParseURL(srv.URL())
	require.NoError(t, err)
	cfg.TLSConfig = srv.ClientTLSConfig()
	cfg.Timeout = waitFor
	m := smtpMailer{smtpclient.New(cfg, nil)}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// smtpMailer is smtpmail.Mailer, which the tests of this package can't import (it imports
// the package): the SMTP client, its failures told as *SendError class for class.
type smtpMailer struct{ *smtpclient.Client }

func (m smtpMailer) Send(ctx context.Context, e Email) error {
	err := m.Client.Send(ctx, smtpclient.Email(e))
	se, ok := smtpclient.IsSendError(err)
	if !ok {
		return err
	}
	return &SendError{Class: FailureClass(se.Class), Code: se.Code, Reason: se.Reason, Text: se.Error(), Public: se.PublicText(), Err: se}
}
