package kiosk_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/sip2"
	"library/internal/testkit/apitest"
	"library/internal/testkit/sipclient"
)

// A copy declared lost, or claimed returned, at the desk says so to a kiosk (12, 11), is not
// lent there, and dropped in the book drop is back on the shelf.
func TestAMissingCopyAtTheKiosk(t *testing.T) {
	t.Parallel()
	lib := twoReplicas(t)
	dune := apitest.AddCopy(t, lib.http, "dune", "Dune", "31234000000017")
	emma := apitest.AddCopy(t, lib.http, "emma", "Emma", "31234000000025")
	apitest.GiveCard(t, lib.http, "m1", "21000001", "1234")
	k := apitest.DialKiosk(t, lib.a.SIP, lib.terminal, lib.password)
	now := time.Now()
	for i, barcode := range []string{"31234000000017", "31234000000025"} {
		out := k.Send(sipclient.Checkout(inst, "21000001", "1234", barcode, now.Add(time.Duration(i)*time.Second), false))
		require.Equal(t, "1", out.FixedField(sip2.OK), out.Value("AF"))
	}
	for _, c := range []struct{ book, path string }{{dune, "lost"}, {emma, "claimed-returned"}} {
		var b struct {
			Loan *struct {
				LoanID string `json:"loanId"`
			} `json:"loan"`
		}
		require.NoError(t, json.Unmarshal(lib.http.Get(t, "/books/"+c.book).Body, &b))
		require.NotNil(t, b.Loan, "lent at the kiosk")
		r := lib.http.Call(t, http.MethodPost, "/books/"+c.book+"/"+c.path, apitest.Obj{"loanId": b.Loan.LoanID})
		require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	}
	assert.Equal(t, "12", k.Send(sipclient.ItemInformation(inst, "31234000000017", now)).Fixed[0], "lost")
	assert.Equal(t, "11", k.Send(sipclient.ItemInformation(inst, "31234000000025", now)).Fixed[0], "claimed returned")

	apitest.GiveCard(t, lib.http, "m2", "21000002", "9876")
	refused := k.Send(sipclient.Checkout(inst, "21000002", "9876", "31234000000017", now.Add(time.Minute), false))
	assert.Equal(t, "0", refused.FixedField(sip2.OK))
	assert.Contains(t, refused.Value("AF"), "recorded as missing")

	back := k.Send(sipclient.Checkin(inst, "drop", "31234000000017", now.Add(2*time.Minute), false))
	require.Equal(t, "1", back.FixedField(sip2.OK), back.Value("AF"))
	assert.Equal(t, "03", k.Send(sipclient.ItemInformation(inst, "31234000000017", now)).Fixed[0], "back on the shelf")
	assert.Zero(t, apitest.GetAccount(t, lib.http, "m1").Balance, "nothing charged (no price), nothing owed")
}
