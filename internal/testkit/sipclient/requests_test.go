package sipclient

import (
	"testing"
	"time"

	"library/internal/sip2"
)

// Each builder makes a request that fits the table, with every field the specification requires.
func TestBuilders(t *testing.T) {
	at := time.Date(2026, 3, 14, 9, 30, 0, 0, time.FixedZone("CET", 3600))
	for _, m := range []sip2.Message{
		Login("kiosk", "secret"),
		Status(),
		PatronStatus("lib", "card", "1234", "001", at),
		PatronInformation("lib", "card", "1234", "001", at),
		Checkout("lib", "card", "1234", "B1", at, true),
		Checkin("lib", "desk", "B1", at, false),
		Renew("lib", "card", "", "B1", at, false),
		RenewAll("lib", "card", "1234", at),
		ItemInformation("lib", "B1", at),
		Hold("+", "lib", "card", "1234", "B1", "main", at),
		FeePaid("lib", "card", "1234", "fee-1", "2.50", "EUR", at),
		EndSession("lib", "card", "1234", at),
	} {
		s, _ := sip2.Lookup(m.Code)
		if s.Response {
			t.Errorf("%s is a response", m.Code)
		}
		if missing := m.Missing(); len(missing) > 0 {
			t.Errorf("%s lacks %v", m.Code, missing)
		}
		b, err := m.Encode()
		if err != nil {
			t.Errorf("%s: %v", m.Code, err)
			continue
		}
		if back, err := sip2.Parse(b); err != nil || back.Code != m.Code {
			t.Errorf("%q: %v", b, err)
		}
		if d := m.FixedField(sip2.TransactionDate); d != "" && d != "20260314    093000" {
			t.Errorf("%s: transaction date %q", m.Code, d)
		}
	}
	if co := Checkout("lib", "card", "", "B1", at, true); co.FixedField(sip2.NoBlock) != "Y" || co.FixedField(sip2.NbDueDate) != sip2.BlankDate {
		t.Errorf("%+v", co)
	}
	if _, ok := Checkout("lib", "card", "", "B1", at, true).Field("AD"); ok {
		t.Error("an empty PIN is sent")
	}
	if h := Hold("-", "lib", "card", "", "B1", "", at); h.FixedField("hold mode") != "-" || h.Value("BS") != "" {
		t.Errorf("%+v", h)
	}
}
