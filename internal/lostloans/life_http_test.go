package lostloans_test

// A lost copy's whole life, through the service, its payment provider (devpay, as Stripe) and a
// real SMTP server, on both stores: overdue notices, lost after LOST_AFTER open days with a
// closed day among them, the replacement charged, paid online, the copy back, and the payment
// refunded once through the provider.
//
// Its days are days: the loan is lost at the end of its second open day overdue. In memory the
// timers go by the service's clock, a test clock the test moves on. In PostgreSQL they go by the
// database's, which no test moves, so the service's clock runs three days behind it until the
// loan is lost, and the library's time zone is one whose day ends lifeMargin after the service
// starts: the loan is made three days before that, in the service's time, and its notices and
// its loss come due on the database's clock as the days would bring them, within a minute. Then
// the service's clock is set right, as a clock that ran slow is, for the payment: the provider's
// signatures are checked against the wall clock too.

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/paytest"
	"library/internal/testkit/smtptest"
	"library/internal/testkit/testclock"
)

const (
	// lifeMargin is how long after the service starts, on the database's clock, its library's
	// day ends three days after the loan: when the loan is lost, in PostgreSQL.
	lifeMargin = 40 * time.Second
	// lifeLoan is the loan's period, and lifeRemind how long before its due time the due-soon
	// reminder goes.
	lifeLoan, lifeRemind = 10 * time.Second, 5 * time.Second
	// lifePrice is a lost DVD's price by the rules: the copy has none of its own.
	lifePrice = 2500
	// lifeWait bounds each wait for the service to act.
	lifeWait = 60 * time.Second
)

// life is one run of the test on a store.
type life struct {
	t    *testing.T
	a    *apitest.API
	pay  *paytest.Provider
	smtp *smtptest.Server
	addr string
	// lostAt is when the loan is lost: the end of its second open day overdue, the day after
	// its due date being closed. closed is that day.
	lostAt time.Time
	closed string
	// reach brings the service's clock to at: a test clock is moved there; the database's clock
	// gets there by itself, and the waits that follow wait for it.
	reach func(at time.Time)
	// setRight sets a clock that ran behind the database's right; a test clock stays as it is.
	setRight func()
}

// startLife starts the service for a store, with the provider and the SMTP server, its clock
// and zone as the package comment says.
func startLife(t *testing.T, store apitest.Store, smtp *smtptest.Server) *life {
	t.Helper()
	// The library's day ends at lostAt: a zone whose clock shows 23:59:59 then.
	lostAt := time.Now().Add(lifeMargin).Truncate(time.Second)
	offset := (86399 - lostAt.UTC().Hour()*3600 - lostAt.Minute()*60 - lostAt.Second()) % 86400
	if offset > 43200 {
		offset -= 86400
	}
	zone := time.FixedZone("lib", offset)
	lent := lostAt.Add(-3*24*time.Hour - lifeMargin) // the service's time when the service starts
	l := &life{t: t, smtp: smtp, lostAt: lostAt, addr: "m-lena-" + store.Name + "@example.org",
		closed: lent.In(zone).AddDate(0, 0, 1).Format(time.DateOnly)}
	var now func() time.Time
	if store.Name == "memory" {
		clock := testclock.New(lent)
		now = clock.Now
		l.reach = func(at time.Time) {
			if d := at.Sub(clock.Now()); d > 0 {
				clock.Advance(d)
			}
		}
		l.setRight = func() {}
	} else {
		var skew atomic.Int64
		skew.Store(int64(time.Since(lent)))
		now = func() time.Time { return time.Now().Add(-time.Duration(skew.Load())) }
		l.reach = func(time.Time) {}
		l.setRight = func() { skew.Store(0) }
	}
	l.pay = paytest.Start(t, paytest.Options{Now: now})
	cfg := apitest.WithPayments(apitest.FastBackground(app.Config{SMTPURL: smtp.URL(), MailFrom: "desk@library.test",
		Timezone: zone, RemindBefore: lifeRemind, OverdueAfter: 24 * time.Hour, OverdueEvery: 24 * time.Hour, OverdueNotices: 5}),
		l.pay, "http://127.0.0.1:8080")
	cfg.Payments.ExpiresAfter = time.Hour
	cfg.DatabaseURL, cfg.Tuning.Now = store.DatabaseURL(t), now
	l.a = apitest.Launch(t, cfg, apitest.ServiceLogger(t, cfg)).API(store.Name)
	require.NoError(t, l.pay.SetWebhookURLs([]string{l.a.Base + "/webhooks/stripe"}))
	return l
}

// A lost copy's full life, on both stores.
func TestHTTPALostCopysLife(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	for _, store := range apitest.Stores {
		t.Run(store.Name, func(t *testing.T) {
			t.Parallel()
			l := startLife(t, store, smtp)
			due := l.lend()
			l.overdue(due)
			l.lost()
			checkout := l.payOnline()
			l.comesBack(checkout)
		})
	}
}

// lend sets the rules (a DVD is lent for lifeLoan, lost after 2 open days, priced lifePrice),
// closes the day after the loan's, and lends a DVD with no price of its own. It returns the due
// time.
func (l *life) lend() time.Time {
	t, a := l.t, l.a
	rows := []apitest.Obj{{"group": "*", "materialType": "dvd", "loanPeriod": lifeLoan.String(), "lostAfter": 2, "replacementPrice": lifePrice}}
	apitest.RequireResult(t, a.Call(t, http.MethodPut, "/circulation-rules", apitest.Obj{"rows": rows}, "If-Match", `"0"`), http.StatusCreated, "circulation-rules")
	apitest.RequireResult(t, a.Send(t, http.MethodPut, "/calendar/closed/"+l.closed, nil), http.StatusCreated, "calendar-library")
	apitest.SetContact(t, a, "m-lena", "Lena", l.addr)
	apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": "dune", "title": "Dune", "author": "Frank Herbert",
		"isbn": apitest.ISBNFor("dune"), "materialType": "dvd"}), http.StatusCreated, "book-dune")
	lent := apitest.Lend(t, a, "dune", "loan-1", "m-lena")
	var loan struct {
		DueAt time.Time `json:"dueAt"`
		Terms struct {
			LostAfter int `json:"lostAfter"`
		} `json:"terms"`
	}
	require.NoError(t, json.Unmarshal(lent.Events[0].Data, &loan))
	require.Equal(t, 2, loan.Terms.LostAfter, "the loan keeps its terms")
	require.True(t, loan.DueAt.Before(l.lostAt.Add(-3*24*time.Hour)), "lent and due on the day three days before the loss: the setup took too long")
	l.reach(loan.DueAt.Add(-lifeRemind))
	l.waitSent("You borrowed", 1)
	l.waitSent("Due soon", 1)
	return loan.DueAt
}

// overdue waits for the loan's first three overdue notices, a day apart, each its own email;
// the loan is not lost yet.
func (l *life) overdue(due time.Time) {
	t := l.t
	for n := 1; n <= 3; n++ {
		l.reach(due.Add(time.Duration(n) * 24 * time.Hour))
		got := l.waitSent("Overdue: Dune", n)
		require.Len(t, got, n, "notice %d, and no other", n)
	}
	notices := l.sent("Overdue: Dune")
	assert.Len(t, map[string]bool{notices[0].MessageID: true, notices[1].MessageID: true, notices[2].MessageID: true}, 3, "each notice its own email")
	assert.Contains(t, notices[0].Body, "Hello Lena,")
	l.reach(l.lostAt.Add(-time.Second))
	apitest.Eventually(t, lifeWait, func() bool {
		s := apitest.ProcessorStatus(t, l.a, "lost-loans")
		return s.Lag == 0 && s.Timers != nil && s.Timers.Waiting == 1
	}, "the loan's timer waits")
	assert.Equal(t, "lent", getBook(t, l.a, "dune").Status, "overdue for less than its 2 open days, the closed one not counted")
}

// lost waits for the loan to be lost: the copy lost in GET /books and the catalog, the loan
// closed on the account and the copy's type's price charged; and no more overdue notices.
func (l *life) lost() {
	t, a := l.t, l.a
	l.reach(l.lostAt)
	apitest.Eventually(t, lifeWait, func() bool { return getBook(t, a, "dune").Status == "lost" }, "the loan lost")
	charges := entries(t, a, "m-lena", "ReplacementCharged")
	require.Len(t, charges, 1)
	assert.JSONEq(t, `{"bookId":"dune","loanId":"loan-1","amount":2500}`, string(charges[0]))
	assert.EqualValues(t, lifePrice, apitest.GetAccount(t, a, "m-lena").Balance)
	assert.Len(t, entries(t, a, "m-lena", "LoanClosed"), 1)
	apitest.Eventually(t, lifeWait, func() bool { return listed(t, a, "lost", "dune") }, "the catalog lists the copy as lost")

	apitest.Eventually(t, lifeWait, func() bool {
		s := apitest.ProcessorStatus(t, a, "notifications")
		return s.Lag == 0 && s.Timers != nil && s.Timers.Waiting == 0
	}, "the loan's reminders cancelled")
	l.reach(l.lostAt.Add(3 * 24 * time.Hour))
	assert.Len(t, l.sent("Overdue: Dune"), 3, "no notice after the loss")
	lost := apitest.ProcessorStatus(t, a, "lost-loans")
	assert.Zero(t, lost.Timers.Waiting)
	assert.Zero(t, lost.Parked)
	l.setRight()
}

// payOnline pays the charge on the provider's page, as the member would; the provider's
// webhook records it. It returns the checkout's id.
func (l *life) payOnline() string {
	t, a := l.t, l.a
	r := a.Call(t, http.MethodPost, "/accounts/m-lena/checkouts", apitest.Obj{"amount": lifePrice}, "Idempotency-Key", "pay-lost-dune")
	require.Equal(t, http.StatusCreated, r.Status, "body: %s", r.Body)
	var c struct {
		CheckoutID string `json:"checkoutId"`
		URL        string `json:"url"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &c))
	page, err := url.Parse(c.URL)
	require.NoError(t, err)
	session := page.Path[strings.LastIndex(page.Path, "/")+1:]
	assert.Equal(t, http.StatusSeeOther, l.pay.Press(session, "pay").Status, "paid on the provider's page")
	apitest.Eventually(t, lifeWait, func() bool { return l.checkout(c.CheckoutID).Status == "paid" }, "the payment recorded")
	assert.Zero(t, apitest.GetAccount(t, a, "m-lena").Balance)
	return c.CheckoutID
}

// comesBack returns the copy: it is back on the shelf, the charge is taken back, and what was
// paid for it online is refunded through the provider once, however often the sagas run again.
func (l *life) comesBack(checkoutID string) {
	t, a := l.t, l.a
	back := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune/returns", apitest.Obj{"loanId": "loan-1"}), http.StatusCreated, "book-dune")
	assert.Equal(t, []string{"LostCopyReturned"}, types(back))
	assert.Equal(t, "available", getBook(t, a, "dune").Status)
	apitest.Eventually(t, lifeWait, func() bool { return l.checkout(checkoutID).Refunded == lifePrice }, "the payment refunded")
	l.refundedOnce(checkoutID)

	account, book := apitest.GetAccount(t, a, "m-lena").Version, getBook(t, a, "dune").Version
	for _, saga := range []string{"checkouts", "lost-loans"} {
		require.Equal(t, http.StatusAccepted, apitest.Admin(t, a, saga, "replay").Status)
	}
	for _, saga := range []string{"checkouts", "lost-loans"} {
		apitest.Eventually(t, lifeWait, func() bool {
			s := apitest.ProcessorStatus(t, a, saga)
			return s.Generation == 1 && s.Lag == 0 && s.InFlight == 0
		}, "%s replayed", saga)
	}
	l.pay.WaitIdle()
	l.refundedOnce(checkoutID)
	assert.Equal(t, account, apitest.GetAccount(t, a, "m-lena").Version, "the replays record nothing on the account")
	assert.Equal(t, book, getBook(t, a, "dune").Version, "nor on the book")
}

// refundedOnce checks that the provider made one refund, of the whole payment, and the account
// recorded it once, owing nothing and holding no credit.
func (l *life) refundedOnce(checkoutID string) {
	t, a := l.t, l.a
	refunds := l.pay.Refunds()
	require.Len(t, refunds, 1, "one refund at the provider")
	assert.EqualValues(t, lifePrice, refunds[0].Amount)
	assert.Equal(t, "succeeded", refunds[0].Status)
	assert.Len(t, entries(t, a, "m-lena", "ReplacementCredited"), 1)
	assert.Len(t, entries(t, a, "m-lena", "RefundDue"), 1)
	assert.Len(t, entries(t, a, "m-lena", "RefundIssued"), 1)
	assert.Zero(t, apitest.GetAccount(t, a, "m-lena").Balance)
	assert.Equal(t, "paid", l.checkout(checkoutID).Status)
}

// checkoutView is what the test reads of GET /accounts/{memberId}/checkouts/{checkoutId}.
type checkoutView struct {
	Status   string `json:"status"`
	Refunded int64  `json:"refunded"`
}

func (l *life) checkout(id string) checkoutView {
	l.t.Helper()
	r := l.a.Get(l.t, "/accounts/m-lena/checkouts/"+id)
	require.Equal(l.t, http.StatusOK, r.Status, "body: %s", r.Body)
	var c checkoutView
	require.NoError(l.t, json.Unmarshal(r.Body, &c))
	return c
}

// sent are the member's emails whose subject starts with prefix.
func (l *life) sent(prefix string) []smtptest.Message { return sentTo(l.smtp, l.addr, prefix) }

// waitSent waits until n of the member's emails with the subject prefix have come.
func (l *life) waitSent(prefix string, n int) []smtptest.Message {
	l.t.Helper()
	apitest.Eventually(l.t, lifeWait, func() bool { return len(l.sent(prefix)) >= n }, "%d emails %q", n, prefix)
	return l.sent(prefix)
}
