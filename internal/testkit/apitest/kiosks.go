package apitest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/sip2"
	"library/internal/testkit/sipclient"
)

// Kiosk is a SIP2 client logged in as a terminal, for tests that play a kiosk.
type Kiosk struct {
	*sipclient.Client
	t testing.TB
}

// Institution is the institution id of the services tests start (SIP_INSTITUTION's default).
const Institution = "library"

// DialKiosk connects to a service's SIP listener and logs in as the terminal.
func DialKiosk(t testing.TB, addr, terminal, password string) *Kiosk {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := sipclient.Dial(ctx, addr, sip2.Framing{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	k := &Kiosk{Client: c, t: t}
	login := k.Send(sipclient.Login(terminal, password))
	require.Equal(t, "1", login.FixedField(sip2.OK), "the terminal logs in")
	return k
}

// Send sends m and returns the answer, failing the test when there is none within 30 s.
func (k *Kiosk) Send(m sip2.Message) sip2.Message {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	answer, err := k.Client.Send(ctx, m)
	require.NoError(k.t, err, "an answer to %s", m.Code)
	return answer
}

// GiveCard gives a member a library card and a PIN, as a librarian and the member do over
// HTTP.
func GiveCard(t testing.TB, a *API, memberID, card, pin string) {
	t.Helper()
	tt, ok := t.(*testing.T)
	require.True(t, ok, "GiveCard runs in a test")
	r := a.Call(tt, http.MethodPut, "/accounts/"+memberID+"/card", Obj{"cardNumber": card})
	require.Contains(t, []int{http.StatusOK, http.StatusCreated}, r.Status, string(r.Body))
	r = a.Call(tt, http.MethodPut, "/accounts/"+memberID+"/pin", Obj{"pin": pin})
	require.Contains(t, []int{http.StatusOK, http.StatusCreated}, r.Status, string(r.Body))
}

// AddCopy adds a title of one copy with a barcode, and returns the copy's id.
func AddCopy(t *testing.T, a *API, titleID, title, barcode string) string {
	t.Helper()
	r := a.Call(t, http.MethodPost, "/titles", Obj{"id": titleID, "title": title, "authors": []string{"A. Writer"}})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	bookID := titleID + "-1"
	r = a.Call(t, http.MethodPost, "/titles/"+titleID+"/copies", Obj{"id": bookID, "barcode": barcode})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	return bookID
}
