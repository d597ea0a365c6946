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

// serviceBooks and serviceMembers answer the outbox from the services, as internal/app does.
type serviceBooks struct{ service *books.Service }

func (s serviceBooks) BookAt(ctx context.Context, bookID string, version int64) (Book, error) {
	book, _, err := s.service.GetAtLeast(ctx, bookID, version)
	return Book{Title: book.Title, Author: book.Author}, err
}

func (s serviceBooks) Current(ctx context.Context, bookID string) (Book, error) {
	book, _, err := s.service.Get(ctx, bookID)
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

type serviceMembers struct{ service *accounts.Service }

func (s serviceMembers) Recipient(ctx context.Context, memberID string) (Recipient, error) {
	account, _, err := s.service.Get(ctx, memberID)
	return Recipient{Name: account.Name, Email: account.Email, Erased: account.Erased}, err
}

// newTestMailer returns an SMTP client configured from srv's URL, as SMTP_URL would configure it.
func newTestMailer(t *testing.T, srv *smtptest.Server) *smtpclient.Client {
	t.Helper()
	cfg, err := smtpclient.ParseURL(srv.URL())
	require.NoError(t, err)
	cfg.TLSConfig = srv.ClientTLSConfig()
	cfg.Timeout = waitFor
	m := smtpclient.New(cfg, nil)
	t.Cleanup(func() { _ = m.Close() })
	return m
}
