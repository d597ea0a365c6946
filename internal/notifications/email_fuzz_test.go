package notifications

import (
	"bytes"
	"context"
	"io"
	"maps"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/smtpclient"
)

// captureMailer keeps the last email it was given.
type captureMailer struct {
	mu   sync.Mutex
	last *Email
}

func (m *captureMailer) Send(_ context.Context, e Email) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last = &e
	return nil
}

func (m *captureMailer) Close() error { return nil }

func (m *captureMailer) take() *Email {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.last
	m.last = nil
	return e
}

// loanEmailHeaders are the header fields of every loan email, each sent once.
var loanEmailHeaders = []string{
	"Content-Transfer-Encoding", "Content-Type", "Date", "From", "Message-Id", "Mime-Version",
	"Subject", "To", "User-Agent", "X-Mailer",
}

// FuzzLoanEmail runs a loan through the services and the outbox with a member name, email
// address, book title and author from the fuzzer, and builds the message the SMTP mailer would
// send. Whatever the values the services accept, the message has exactly the loan email's
// header fields, once each; it goes to that one address alone, in the header and the envelope;
// its subject decodes to the title line; and its body is the outbox's text, the member's name,
// title and author in it. So no name, title or address can add a header or a recipient.
func FuzzLoanEmail(f *testing.F) {
	for _, seed := range []struct{ name, email, title, author string }{
		{"Zoë Bauer", "zoe@example.org", "Dune", "Frank Herbert"},
		{"Alice", "alice+lib@mail.example.org", "Der Zauberberg – Ünïcode", "Thomas Mann"},
		{"Eve\r\nBcc: evil@example.org", "eve@example.org", "Dune", "Herbert"},
		{"Eve", "eve@example.org\r\nBcc: evil@example.org", "Dune", "Herbert"},
		{"Eve", "eve@example.org", "Dune\r\nBcc: evil@example.org", "Herbert"},
		{"Eve", "eve@example.org", "Dune\nBcc: evil@example.org", "Herbert"},
		{"Eve", "eve@example.org", "Dune", "Herbert\r\n\r\nBcc: evil@example.org"},
		{"Eve", "eve@example.org,evil@example.org", "Dune", "Herbert"},
		{"Eve", "Eve <eve@example.org>", "Dune", "Herbert"},
		{"Eve", "eve@example.org", "=?UTF-8?q?Dune=0D=0ABcc:_evil@example.org?=", "Herbert"},
		{"Eve", "eve@example.org", "Bcc: evil@example.org", "To: evil@example.org"},
		{"Eve", "eve@example.org", "Dune\x00", "Herbert"},
		{"Eve", "eve@example.org", "Dune\u2028Bcc: evil@example.org", "Herbert"},
		{"Eve", "eve@example.org", "Dune\u0085Bcc: evil@example.org", "Herbert"},
		{"Eve", "eve@example.org", "\u202eenuD", "Herbert"},
		{"Eve", "eve@example.org", strings.Repeat("Überfällig ", 27), strings.Repeat("a", 300)},
		{strings.Repeat("N", 200), strings.Repeat("a", 64) + "@" + strings.Repeat("b", 60) + ".org", "=", "=="},
		{"  ", "eve@example.org", "Dune", "Herbert"},
		{"Eve", "eve@example.org", ".", "."},
		{"Eve", "", "Dune", "Herbert"},
	} {
		f.Add(seed.name, seed.email, seed.title, seed.author)
	}

	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	store := eventstore.NewMemory(func() time.Time { return now })
	bookService := books.NewService(store, aggregate.Options{}, func() time.Time { return now }, books.Policy{LoanPeriod: 14 * 24 * time.Hour, MaxRenewals: 2}, nil)
	accountService := accounts.NewService(store, aggregate.Options{})
	mailer := &captureMailer{}
	outbox := &Outbox{Mailer: mailer, Facts: serviceFacts{bookService, accountService}, From: "library@localhost",
		Installation: store.Installation}
	var runs int

	f.Fuzz(func(t *testing.T, name, email, title, author string) {
		ctx := t.Context()
		runs++ // one fuzz input at a time: each run has ids of its own
		n := strconv.Itoa(runs)
		bookID, memberID, loanID := "b"+n, "m"+n, "L"+n
		if email == "" {
			return // a member without an address gets no email
		}
		if _, err := accountService.SetContact(ctx, memberID, accounts.SetContact{Name: name, Email: email}, aggregate.Origin{}); err != nil {
			return // refused: these values never reach an email
		}
		if _, err := bookService.Add(ctx, books.AddBook{ID: bookID, Title: title, Author: author}, aggregate.Origin{}); err != nil {
			return
		}
		if _, err := bookService.Lend(ctx, bookID, books.LendBook{LoanID: loanID, MemberID: memberID}, aggregate.Origin{}); err != nil {
			t.Fatalf("lend: %v", err)
		}
		events, err := store.ReadStream(ctx, books.Type().StreamID(bookID), 0)
		if err != nil || len(events) != 2 {
			t.Fatalf("the book's stream: %d events, %v", len(events), err)
		}
		lent := events[1]
		if err := outbox.Handle(handling(t), lent); err != nil {
			t.Fatalf("the outbox refused a loan whose member has an address: %v", err)
		}
		sent := mailer.take()
		if sent == nil {
			t.Fatal("the outbox sent nothing")
		}

		msg, err := smtpclient.NewMessage(smtpclient.Email(*sent))
		if err != nil {
			t.Fatalf("an email to an address the service accepted (%q) cannot be built: %v", email, err)
		}
		rcpt, err := msg.GetRecipients()
		if err != nil || len(rcpt) != 1 {
			t.Fatalf("envelope recipients %q, %v; want only %q", rcpt, err, email)
		}
		if addr, err := mail.ParseAddress(rcpt[0]); err != nil || addr.Address != email {
			t.Fatalf("envelope recipient %q, want %q", rcpt[0], email)
		}
		var raw bytes.Buffer
		if _, err := msg.WriteTo(&raw); err != nil {
			t.Fatalf("write the message: %v", err)
		}
		parsed, err := mail.ReadMessage(bytes.NewReader(raw.Bytes()))
		if err != nil {
			t.Fatalf("the message does not parse: %v\n%q", err, raw.Bytes())
		}
		h := parsed.Header
		if got := slices.Sorted(maps.Keys(h)); !slices.Equal(got, loanEmailHeaders) {
			t.Fatalf("header fields %q, want %q\n%q", got, loanEmailHeaders, raw.Bytes())
		}
		for k, v := range h {
			if len(v) != 1 {
				t.Fatalf("header %s sent %d times\n%q", k, len(v), raw.Bytes())
			}
		}
		if to, err := h.AddressList("To"); err != nil || len(to) != 1 || to[0].Address != email {
			t.Fatalf("To: %q reads as %v, %v; want only %q", h.Get("To"), to, err, email)
		}
		if from, err := h.AddressList("From"); err != nil || len(from) != 1 || from[0].Address != outbox.From {
			t.Fatalf("From: %q reads as %v, %v", h.Get("From"), from, err)
		}
		if got, want := h.Get("Message-Id"), mustMessageIDs(t, outbox).For(lent); got != want {
			t.Fatalf("Message-ID %q, want %q", got, want)
		}
		subject, err := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
		// A header's trailing blanks are not part of its value (readers trim them, as
		// net/textproto does), so a title's trailing spaces may not survive the trip.
		if want := "You borrowed " + title; err != nil || strings.TrimRight(subject, " \t") != strings.TrimRight(want, " \t") {
			t.Fatalf("Subject %q decodes to %q, %v; want %q", h.Get("Subject"), subject, err, want)
		}
		body, err := io.ReadAll(quotedprintable.NewReader(parsed.Body))
		if err != nil {
			t.Fatalf("the body is not quoted-printable: %v", err)
		}
		if want := strings.ReplaceAll(sent.Body, "\n", "\r\n"); string(body) != want {
			t.Fatalf("body %q, want %q", body, want)
		}
		for _, s := range []string{name, title, author, loanID} {
			if !strings.Contains(sent.Body, s) {
				t.Fatalf("the body leaves out %q: %q", s, sent.Body)
			}
		}
	})
}

func mustMessageIDs(t *testing.T, o *Outbox) MessageIDs {
	t.Helper()
	ids, err := o.messageIDs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return ids
}
