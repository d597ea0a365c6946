package devpay_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/paytest"
)

// page is the hosted page of a session, as a browser gets it.
func page(t *testing.T, url string) (int, http.Header, string) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{}, Timeout: paytest.Wait}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(body)
}

func TestThePageShowsWhatIsPaidAndNothingPrivate(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	s := open(t, p, 1250)
	status, h, body := page(t, s.URL)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "text/html; charset=utf-8", h.Get("Content-Type"))
	require.Contains(t, h.Get("Content-Security-Policy"), "form-action 'self' http://127.0.0.1:8080")
	require.Contains(t, body, `<html lang="en">`)
	require.Contains(t, body, "<h1>Pay EUR 12.50</h1>")
	require.Contains(t, body, `<dd id="for">Late fines</dd>`)
	for _, button := range []string{"pay", "decline", "cancel"} {
		require.Contains(t, body, `name="action" value="`+button+`"`)
	}
	require.Contains(t, body, ">Pay</button>")
	require.NotContains(t, body, "<script")
	for _, private := range []string{"co_checkout1", "m-alice", p.SecretKey()} {
		require.NotContains(t, body, private)
	}

	status, _, _ = page(t, p.URL()+"/pay/cs_test_nothing")
	require.Equal(t, http.StatusNotFound, status)
}

func TestPayRedirectsToSuccessAndPaysOnce(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	rcv := paytest.NewReceiver(t, p.WebhookSecret())
	require.NoError(t, p.SetWebhookURLs([]string{rcv.URL}))
	s := open(t, p, 1250)

	a := p.Press(s.ID, "pay")
	require.Equal(t, http.StatusSeeOther, a.Status)
	require.Equal(t, "http://127.0.0.1:8080/paid?session="+s.ID, a.Location)
	paid, _ := p.Session(s.ID)
	require.Equal(t, "complete", paid.Status)
	require.Equal(t, "paid", paid.PaymentStatus)
	require.True(t, strings.HasPrefix(paid.PaymentIntent, "pi_"), paid.PaymentIntent)

	got := rcv.WaitReceived(1)
	require.Equal(t, []string{"checkout.session.completed"}, types(got))
	require.Equal(t, paid.PaymentIntent, sessionOf(t, got[0]).PaymentIntent.ID)

	again := p.Press(s.ID, "pay")
	require.Equal(t, http.StatusSeeOther, again.Status, "a second Pay goes on to the library")
	require.Equal(t, a.Location, again.Location)
	still, _ := p.Session(s.ID)
	require.Equal(t, paid.PaymentIntent, still.PaymentIntent, "and pays nothing more")
	p.WaitIdle()
	require.Len(t, p.Events(), 1)
	require.Len(t, rcv.Received(), 1)

	_, _, body := page(t, s.URL)
	require.Contains(t, body, "This payment is complete")
	require.NotContains(t, body, `value="pay"`)
}

func TestDeclineLeavesTheSessionOpenAndMovesNoMoney(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	s := open(t, p, 1250)

	a := p.Press(s.ID, "decline")
	require.Equal(t, http.StatusOK, a.Status)
	require.Contains(t, a.Body, `role="alert"`)
	require.Contains(t, a.Body, "Your card was declined")
	require.Contains(t, a.Body, `value="pay"`, "the member may try again")
	got, _ := p.Session(s.ID)
	require.Equal(t, "open", got.Status)
	require.Equal(t, "unpaid", got.PaymentStatus)
	require.Empty(t, got.PaymentIntent)
	require.Equal(t, 1, got.Declines)
	require.Empty(t, p.Events())

	declined, err := p.Decline(s.ID)
	require.NoError(t, err)
	require.Equal(t, 2, declined.Declines)
}

func TestCancelGoesBackAndLeavesTheSessionOpen(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	s := open(t, p, 1250)
	a := p.Press(s.ID, "cancel")
	require.Equal(t, http.StatusSeeOther, a.Status)
	require.Equal(t, "http://127.0.0.1:8080/fines", a.Location)
	got, _ := p.Session(s.ID)
	require.Equal(t, "open", got.Status)
	require.Empty(t, p.Events())

	require.Equal(t, http.StatusBadRequest, p.Press(s.ID, "steal").Status)
}

func TestAnExpiredPageOffersNoPay(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	s := open(t, p, 1250)
	_, err := p.Expire(s.ID)
	require.NoError(t, err)

	_, _, body := page(t, s.URL)
	require.Contains(t, body, "has expired")
	require.NotContains(t, body, `value="pay"`)

	a := p.Press(s.ID, "pay")
	require.Equal(t, http.StatusOK, a.Status)
	require.Contains(t, a.Body, "has expired")
	got, _ := p.Session(s.ID)
	require.Equal(t, "expired", got.Status)
	require.Equal(t, "unpaid", got.PaymentStatus)
	_, err = p.Pay(s.ID)
	require.Error(t, err)
}
