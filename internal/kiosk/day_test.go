package kiosk_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/sip2"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/sipclient"
)

const inst = apitest.Institution

// library is two replicas on one PostgreSQL, each with a SIP listener, and a terminal.
type library struct {
	a, b               apitest.Service
	http               *apitest.API
	terminal, password string
}

func twoReplicas(t *testing.T, tune ...func(*app.Config)) library {
	t.Helper()
	db := pgtest.NewDatabase(t)
	cfg := func(replica string) app.Config {
		c := apitest.FastBackground(app.Config{DatabaseURL: db, ReplicaID: replica})
		c.SIP.Addr = "127.0.0.1:0"
		for _, f := range tune {
			f(&c)
		}
		return c
	}
	a := apitest.Launch(t, cfg("a"), apitest.ServiceLogger(t, cfg("a")))
	password := apitest.AddTerminal(t, cfg("a"), "kiosk-1")
	b := apitest.Launch(t, cfg("b"), apitest.ServiceLogger(t, cfg("b")))
	return library{a: a, b: b, http: a.API("postgres"), terminal: "kiosk-1", password: password}
}

// withoutSeq is an answer as compared between a first try and its retry: the sequence number is
// the connection's, not the transaction's.
func withoutSeq(m sip2.Message) sip2.Message {
	m.Seq, m.HasSeq = 0, false
	return m
}

// A kiosk's day, on two replicas: every retry reaches the other replica, and is decided once and
// answered with the first answer.
func TestAKiosksDayOnTwoReplicas(t *testing.T) {
	t.Parallel()
	lib := twoReplicas(t)
	bookID := apitest.AddCopy(t, lib.http, "dune", "Dune", "31234000000017")
	apitest.GiveCard(t, lib.http, "m1", "21000001", "1234")
	apitest.GiveCard(t, lib.http, "m2", "21000002", "9876")
	apitest.Fine(t, lib.http, "m1", 250, "lost card")

	ka := apitest.DialKiosk(t, lib.a.SIP, lib.terminal, lib.password)
	kb := apitest.DialKiosk(t, lib.b.SIP, lib.terminal, lib.password)
	status := ka.Send(sipclient.Status())
	require.Equal(t, "98", status.Code)
	assert.Equal(t, "YYYNYYYYYYYNNYYY", status.Value("BX"))

	info := ka.Send(sipclient.PatronInformation(inst, "21000001", "1234", "001", time.Now()))
	require.Equal(t, "64", info.Code)
	assert.Equal(t, "Y", info.Value("BL"))
	assert.Equal(t, "Y", info.Value("CQ"))
	assert.Equal(t, "2.50", info.Value("BV"), "the balance")

	tx := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	checkout := sipclient.Checkout(inst, "21000001", "1234", "31234000000017", tx, false)
	first := ka.Send(checkout)
	require.Equal(t, "1", first.FixedField(sip2.OK), first.Value("AF"))
	again := kb.Send(checkout)
	assert.Equal(t, withoutSeq(first), withoutSeq(again), "the retry on the other replica gets the first answer")
	loans := lib.http.Get(t, "/books/"+bookID)
	require.Equal(t, http.StatusOK, loans.Status)
	history := lib.http.Get(t, "/accounts/m1/history")
	assert.Equal(t, 1, countEvents(t, history.Body, "LoanOpened"), "one loan")

	renewed := kb.Send(sipclient.Renew(inst, "21000001", "1234", "31234000000017", tx.Add(time.Minute), false))
	require.Equal(t, "1", renewed.FixedField(sip2.OK), renewed.Value("AF"))
	assert.NotEqual(t, first.Value("AH"), renewed.Value("AH"), "a later due date")

	r := lib.http.Call(t, http.MethodPost, "/titles/dune/holds", apitest.Obj{"memberId": "m2"}, "Idempotency-Key", "m2-dune")
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	checkin := sipclient.Checkin(inst, "desk", "31234000000017", tx.Add(2*time.Minute), false)
	back := ka.Send(checkin)
	require.Equal(t, "1", back.FixedField(sip2.OK), back.Value("AF"))
	assert.Equal(t, "Y", back.FixedField("alert"), "a hold trapped: the sorter sends it to the hold shelf")
	assert.Equal(t, "01", back.Value("CV"))
	assert.NotEmpty(t, back.Value("CM"), "the pickup date")
	assert.NotContains(t, back.Fields, sip2.Field{ID: "DA", Value: "m2"})
	assert.Equal(t, withoutSeq(back), withoutSeq(kb.Send(checkin)), "the checkin sent again: the first answer")

	fee := sipclient.FeePaid(inst, "21000001", "1234", "fine-1", "2.50", "EUR", tx.Add(3*time.Minute)).Add("BK", "card-reader-0042")
	paid := ka.Send(fee)
	require.Equal(t, "Y", paid.Fixed[0], paid.Value("AF"))
	assert.Equal(t, withoutSeq(paid), withoutSeq(kb.Send(fee)), "the fee sent twice: paid once, answered alike")
	account := apitest.GetAccount(t, lib.http, "m1")
	assert.Equal(t, int64(0), account.Balance, "paid once")

	end := ka.Send(sipclient.EndSession(inst, "21000001", "1234", tx.Add(4*time.Minute)))
	assert.Equal(t, "Y", end.Fixed[0])
}

// countEvents counts the events of a type in GET /accounts/{memberId}/history's answer.
func countEvents(t *testing.T, body []byte, typ string) int {
	t.Helper()
	var page struct {
		Entries []struct {
			Type string `json:"type"`
		} `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(body, &page))
	n := 0
	for _, e := range page.Entries {
		if e.Type == typ {
			n++
		}
	}
	return n
}
