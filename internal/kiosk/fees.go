package kiosk

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"library/internal/accounts"
	"library/internal/sip2"
)

// feePaid records a payment the kiosk's own card reader or cash box took (37). The kiosk's
// transaction id (BK) identifies it: the same BK sent again, from this terminal, pays nothing
// more and is answered as the first time. Without a BK, the transaction date, card and amount
// identify it.
func feePaid(ctx context.Context, s *session, m sip2.Message) (sip2.Message, string) {
	answer := sip2.Message{Code: "38", Fixed: []string{"N", s.now()},
		Fields: []sip2.Field{{ID: "AO", Value: s.srv.opts.Institution}, {ID: "AA", Value: m.Value("AA")}}}
	if bk, ok := m.Field("BK"); ok {
		answer = answer.Add("BK", bk)
	}
	p, no := s.show(ctx, m)
	if no == nil {
		no = s.mayFor(http.MethodPost, "/accounts/{memberId}/payments", p, p.memberID)
	}
	cents, ok := cents(m.Value("BV"))
	switch {
	case no != nil:
	case !ok:
		no = refuse(outcomeRefused, "The amount could not be read: please see a librarian.")
	case !strings.EqualFold(m.FixedField("currency type"), s.srv.opts.Currency):
		no = refuse(outcomeRefused, "Fees are paid in "+s.srv.opts.Currency+" here.")
	}
	if no != nil {
		return answer.Add("AF", no.screen), no.outcome
	}
	id := transactionID(s.terminal, m.Code, "BK", m.Value("BK"))
	if m.Value("BK") == "" {
		id = transactionID(s.terminal, m.Code, m.FixedField("transaction date"), p.card, m.Value("BV"))
	}
	r, err := s.srv.svc.Members.Pay(ctx, p.memberID, accounts.Pay{Amount: cents}, s.origin(id))
	if err != nil {
		no := failed(s, "fee paid", err)
		return answer.Add("AF", no.screen), no.outcome
	}
	answer.Fixed[0], answer.Fixed[1] = "Y", answeredAt(r, m)
	return answer.Add("AF", "Thank you: "+amount(cents)+" "+s.srv.opts.Currency+" paid."), outcomeOK
}

// cents reads the protocol's money ("12.50", "3", "0.5") as whole cents, more than 0.
func cents(v string) (int64, bool) {
	whole, frac, _ := strings.Cut(strings.TrimSpace(v), ".")
	if len(frac) > 2 || whole == "" && frac == "" {
		return 0, false
	}
	frac += strings.Repeat("0", 2-len(frac))
	w, err := strconv.ParseInt("0"+whole, 10, 64)
	if err != nil || w > 1_000_000 || strings.ContainsAny(whole+frac, "+-") {
		return 0, false
	}
	f, err := strconv.ParseInt(frac, 10, 64)
	if err != nil || w*100+f <= 0 {
		return 0, false
	}
	return w*100 + f, true
}
