package notifications_test

// No field of a loan email can add a header or a recipient: whatever a book's title and author,
// a member's name and email, or a loan id hold, the email the SMTP server receives has exactly
// the expected headers, and goes only to the member.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/mail"
	"net/textproto"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/eventstore"
	"library/internal/eventstore/pgstore"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/smtptest"
)

const mailFrom = "desk@library.test"

// loanEmailHeaders are the header fields of every loan email, each exactly once.
var loanEmailHeaders = []string{
	"Content-Transfer-Encoding", "Content-Type", "Date", "From", "Message-Id", "Mime-Version",
	"Subject", "To", "User-Agent", "X-Mailer",
}

// hostile are line breaks of every kind, each followed by a header of the attacker's.
var hostile = map[string]string{
	"CR LF":               "\r\nBcc: evil@attacker.example",
	"LF":                  "\nBcc: evil@attacker.example",
	"CR":                  "\rBcc: evil@attacker.example",
	"LF LF":               "\n\nBcc: evil@attacker.example",
	"line separator":      "\u2028Bcc: evil@attacker.example",
	"paragraph separator": "\u2029Bcc: evil@attacker.example",
	"next line":           "\u0085Bcc: evil@attacker.example",
	"NUL":                 "\x00Bcc: evil@attacker.example",
	"vertical tab":        "\vBcc: evil@attacker.example",
	"form feed":           "\fBcc: evil@attacker.example",
}

// Line breaks are refused in every field the email is made of, at the edge: 400, and nothing
// recorded.
func TestHTTPLoanEmailFieldsRefuseLineBreaks(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	apitest.ForEachStore(t, apitest.FastBackground(app.Config{SMTPURL: smtp.URL(), MailFrom: mailFrom}), func(t *testing.T, a *apitest.API) {
		apitest.SetContact(t, a, "reader", "Reader", "reader@example.org")
		apitest.AddBook(t, a, "dune")
		for why, attack := range hostile {
			refused := []struct {
				method, path string
				body         apitest.Obj
			}{
				{http.MethodPost, "/books", apitest.Obj{"id": "evil", "title": "Dune" + attack, "author": "Frank Herbert"}},
				{http.MethodPost, "/books", apitest.Obj{"id": "evil", "title": "Dune", "author": "Frank Herbert" + attack}},
				{http.MethodPut, "/accounts/evil", apitest.Obj{"name": "Eve" + attack}},
				{http.MethodPut, "/accounts/evil", apitest.Obj{"name": "Eve", "email": "eve@example.org" + attack}},
				{http.MethodPut, "/accounts/reader", apitest.Obj{"name": "Reader", "email": "reader@example.org" + attack}},
				{http.MethodPost, "/books/dune/loans", apitest.Obj{"loanId": "loan-1" + attack, "memberId": "reader"}},
			}
			for _, r := range refused {
				p := apitest.RequireProblem(t, a.Call(t, r.method, r.path, r.body), http.StatusBadRequest, "InvalidRequest")
				assert.NotContains(t, p.Detail, "attacker", "%s: the detail never echoes the value", why)
			}
		}
		apitest.RequireProblem(t, a.Get(t, "/books/evil"), http.StatusNotFound, "NotFound")
		apitest.RequireProblem(t, a.Get(t, "/accounts/evil"), http.StatusNotFound, "NotFound")
		assert.Equal(t, ptr("reader@example.org"), apitest.GetAccount(t, a, "reader").Email)
		assert.EqualValues(t, 1, getBookVersion(t, a, "dune"), "the book was never lent")
	})
}

// What the edge accepts, however much it looks like a header, and at the longest lengths
// allowed, arrives as the expected headers and no more, to the member only.
func TestHTTPLoanEmailHeadersWhateverTheFields(t *testing.T) {
	t.Parallel()
	for _, store := range apitest.Stores {
		t.Run(store.Name, func(t *testing.T) {
			t.Parallel()
			smtp := smtptest.Start(t) // each store its own, so that each email is found once
			cfg := apitest.FastBackground(app.Config{SMTPURL: smtp.URL(), MailFrom: mailFrom, DatabaseURL: store.DatabaseURL(t)})
			testLoanEmailHeaders(t, &apitest.API{Base: apitest.StartService(t, cfg), Store: store.Name}, smtp)
		})
	}
}

func testLoanEmailHeaders(t *testing.T, a *apitest.API, smtp *smtptest.Server) {
	{
		type loanCase struct {
			title, author, name, email, loanID string
		}
		// The longest address: a 64-character local part and a 189-character host name.
		longHost := strings.Repeat(strings.Repeat("h", 61)+".", 3) + "org"
		cases := []loanCase{{
			title:  "Dune Bcc: evil@attacker.example <evil@attacker.example>",
			author: "To: evil@attacker.example, Cc: evil@attacker.example",
			name:   "Reader Bcc: evil@attacker.example",
			email:  "reader+bcc-evil@example.org",
			loanID: "Bcc:evil@attacker.example",
		}, {
			// An encoded word that decodes to a line break and a header.
			title:  "=?UTF-8?Q?=0D=0ABcc:_evil@attacker.example?=",
			author: "=?UTF-8?B?DQpCY2M6IGV2aWxAYXR0YWNrZXIuZXhhbXBsZQ==?=",
			name:   "=?UTF-8?Q?Eve=0D=0ABcc:_evil@attacker.example?=",
			email:  "encoded@example.org",
			loanID: "loan.encoded-word",
		}, {
			title:  fit("Bcc: evil@attacker.example; ", 300),
			author: fit("Reply-To: evil@attacker.example ", 300),
			name:   fit("From: evil@attacker.example ", 200),
			email:  strings.Repeat("l", 64) + "@" + longHost,
			loanID: fit("Bcc:evil@attacker.example+", 128),
		}, {
			title:  fit("Überfällig – Der Zauberberg ☃ ", 300),
			author: fit("Thomas Mann – Ünïcødé ", 300),
			name:   fit("Zoë Ünïcødé ", 200),
			email:  "unicode@example.org",
			loanID: "loan-unicode",
		}}
		require.Len(t, cases[2].email, 254)

		lent := make([]apitest.Result, len(cases))
		for i, c := range cases {
			member := fmt.Sprintf("member-%d", i)
			book := fmt.Sprintf("book-%d", i)
			apitest.SetContact(t, a, member, c.name, c.email)
			r := a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": book, "title": c.title, "author": c.author})
			apitest.RequireResult(t, r, http.StatusCreated, "book-"+book)
			r = a.Call(t, http.MethodPost, "/books/"+book+"/loans", apitest.Obj{"loanId": c.loanID, "memberId": member})
			lent[i] = apitest.RequireResult(t, r, http.StatusCreated, "book-"+book)
		}
		apitest.CaughtUp(t, a, "notifications")
		for i, c := range cases {
			got := messageTo(t, smtp, c.email)
			requireLoanEmail(t, got, c.email, lent[i].Position)
			assert.Equal(t, "You borrowed "+c.title, got.Subject)
			for _, field := range []string{c.title, c.author, c.name, c.loanID} {
				assert.Contains(t, got.Body, field, "the body holds every field as sent")
			}
		}
		requireOnlyTo(t, smtp, func(addr string) bool {
			return slices.ContainsFunc(cases, func(c loanCase) bool { return c.email == addr })
		})
	}
}

// Events that never went through the edge, such as events written by an older version or
// mended by hand in the database, are no way in either: a title, author or name with line
// breaks still makes an email with the expected headers, and an address with one is not sent
// to at all.
func TestHTTPLoanEmailHeadersFromUncheckedEvents(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	databaseURL := pgtest.NewDatabase(t)
	a := &apitest.API{Base: apitest.StartService(t, apitest.FastBackground(app.Config{DatabaseURL: databaseURL, SMTPURL: smtp.URL(), MailFrom: mailFrom})),
		Store: "postgres"}
	store := pgstore.New(pgtest.Connect(t, databaseURL), slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(store.Close)
	write := func(streamID, typ string, data any) {
		t.Helper()
		b, err := json.Marshal(data)
		require.NoError(t, err)
		_, err = store.Append(context.Background(), streamID, 0, []eventstore.NewEvent{{Type: typ, Data: b,
			Metadata: eventstore.Metadata{CommandID: "written-directly:" + streamID}}})
		require.NoError(t, err)
	}

	var cases []struct{ title, author, name, email string }
	i := 0
	for _, attack := range hostile {
		if strings.ContainsRune(attack, 0) {
			continue // jsonb can't hold a NUL, so no event in the log can
		}
		cases = append(cases, struct{ title, author, name, email string }{
			title: "Dune" + attack, author: "Frank Herbert" + attack, name: "Reader" + attack,
			email: fmt.Sprintf("reader-%d@example.org", i),
		})
		i++
	}
	lent := make([]apitest.Result, len(cases))
	for i, c := range cases {
		write(fmt.Sprintf("book-unchecked-%d", i), "BookAdded", apitest.Obj{"id": fmt.Sprintf("unchecked-%d", i), "title": c.title, "author": c.author})
		write(fmt.Sprintf("account-unchecked-%d", i), "AccountOpened", apitest.Obj{"name": c.name, "email": c.email})
		lent[i] = apitest.Lend(t, a, fmt.Sprintf("unchecked-%d", i), "loan-1", fmt.Sprintf("unchecked-%d", i))
	}
	// And one member whose address itself carries a header.
	write("account-unchecked-address", "AccountOpened", apitest.Obj{"name": "Eve", "email": "eve@example.org\r\nBcc: evil@attacker.example"})
	write("book-unchecked-address", "BookAdded", apitest.Obj{"id": "unchecked-address", "title": "Emma", "author": "Jane Austen"})
	apitest.Lend(t, a, "unchecked-address", "loan-1", "unchecked-address")

	apitest.Eventually(t, 20*time.Second, func() bool {
		s := apitest.ProcessorStatus(t, a, "notifications")
		return s.Lag == 0 && s.Parked == 1
	}, "every email sent but the one to the address with a header in it, which is parked")
	for i, c := range cases {
		got := messageTo(t, smtp, c.email)
		requireLoanEmail(t, got, c.email, lent[i].Position)
		assert.Equal(t, "You borrowed "+c.title, got.Subject, "the subject, line break and all, is one encoded header")
	}
	requireOnlyTo(t, smtp, func(addr string) bool {
		return strings.HasPrefix(addr, "reader-") && strings.HasSuffix(addr, "@example.org")
	})
	parked := apitest.ListParked(t, a, "notifications")
	require.Len(t, parked.Parked, 1)
	assert.Contains(t, parked.Parked[0].Reason, "To address")
	assert.Equal(t, 1, parked.Parked[0].Attempts, "an address that can't be sent is parked at once")
	assert.NotContains(t, parked.Parked[0].Reason, "eve@example.org", "the error names the message, not the recipient")
}

// fit repeats s to exactly n characters.
func fit(s string, n int) string {
	out := []rune(strings.Repeat(s, n/utf8.RuneCountInString(s)+1))
	return string(out[:n])
}

func getBookVersion(t *testing.T, a *apitest.API, bookID string) int64 {
	t.Helper()
	var book struct {
		Version int64 `json:"version"`
	}
	require.NoError(t, json.Unmarshal(a.Get(t, "/books/"+bookID).Body, &book))
	return book.Version
}

// messageTo waits for the one email to addr and returns it.
func messageTo(t *testing.T, smtp *smtptest.Server, addr string) smtptest.Message {
	t.Helper()
	var got []smtptest.Message
	apitest.Eventually(t, 20*time.Second, func() bool {
		got = nil
		for _, m := range smtp.Messages() {
			if slices.Contains(m.To, addr) {
				got = append(got, m)
			}
		}
		return len(got) > 0
	}, "an email to %s", addr)
	require.Len(t, got, 1, "one email to %s", addr)
	return got[0]
}

// requireLoanEmail checks the envelope and the headers of a loan email: to addr alone, from
// MAIL_FROM, with exactly the expected header fields, each once and each well formed.
func requireLoanEmail(t *testing.T, got smtptest.Message, addr string, position int64) {
	t.Helper()
	require.Equal(t, []string{addr}, got.To, "the envelope's recipients")
	require.Equal(t, mailFrom, got.From, "the envelope's sender")
	require.NotNil(t, got.Header, "the message parses:\n%s", got.Raw)
	var keys []string
	for k, v := range got.Header {
		keys = append(keys, k)
		require.Len(t, v, 1, "header %s once", k)
	}
	slices.Sort(keys)
	require.Equal(t, loanEmailHeaders, keys, "the header fields:\n%s", headerBlock(got.Raw))
	to, err := mail.ParseAddressList(got.Header.Get("To"))
	require.NoError(t, err)
	require.Len(t, to, 1)
	require.Equal(t, addr, to[0].Address)
	from, err := mail.ParseAddressList(got.Header.Get("From"))
	require.NoError(t, err)
	require.Len(t, from, 1)
	require.Equal(t, mailFrom, from[0].Address)
	apitest.RequireMessageID(t, got.MessageID, position, mailFrom[strings.LastIndexByte(mailFrom, '@')+1:])
	// Every line of the header block is a field of its own or the folded rest of one: no line
	// of the attacker's starts a field.
	for _, line := range strings.Split(headerBlock(got.Raw), "\r\n") {
		if line == "" || line[0] == ' ' || line[0] == '\t' {
			continue
		}
		name, _, ok := strings.Cut(line, ":")
		require.True(t, ok, "header line %q", line)
		require.Contains(t, loanEmailHeaders, textproto.CanonicalMIMEHeaderKey(name), "header line %q", line)
		require.LessOrEqual(t, len(line), 998, "RFC 5322 line length")
	}
}

// requireOnlyTo checks that every email the server took went only to addresses that wanted
// says are the members'.
func requireOnlyTo(t *testing.T, smtp *smtptest.Server, wanted func(addr string) bool) {
	t.Helper()
	for _, m := range smtp.Messages() {
		for _, rcpt := range m.To {
			require.True(t, wanted(rcpt), "an email went to %s", rcpt)
		}
	}
}

func headerBlock(raw []byte) string {
	block, _, _ := strings.Cut(string(raw), "\r\n\r\n")
	return block
}

func ptr(s string) *string { return &s }
