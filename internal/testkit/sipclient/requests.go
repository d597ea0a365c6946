package sipclient

import (
	"time"

	"library/internal/sip2"
)

// The builders make the requests a kiosk sends most, with every field the specification
// requires. Transaction dates are written as local time in txDate's own location
// (sip2.FormatDate): pass the time in the library's zone. A terminal password (AC) is sent
// empty, as kiosks that logged in with 93 do; a patron password (AD) only when pin is not "".

// Login is a 93 with the login user id and password, neither encrypted.
func Login(user, password string) sip2.Message {
	return sip2.Message{Code: "93", Fixed: []string{"0", "0"}}.Add("CN", user).Add("CO", password)
}

// Status is a 99: status OK, a print width of 80, protocol version 2.00.
func Status() sip2.Message {
	return sip2.Message{Code: "99", Fixed: []string{"0", "080", "2.00"}}
}

// PatronStatus is a 23 for the card, in the language given (three digits, "001" English).
func PatronStatus(inst, card, pin, lang string, txDate time.Time) sip2.Message {
	m := sip2.Message{Code: "23", Fixed: []string{lang, sip2.FormatDate(txDate)}}
	return m.Add("AO", inst).Add("AA", card).Add("AC", "").Add("AD", pin)
}

// PatronInformation is a 63 for the card, asking for no item list (a blank summary). To ask for
// one, put a "Y" at its position in Fixed[2]: 0 holds, 1 overdue, 2 charged, 3 fines, 4 recalls,
// 5 unavailable holds.
func PatronInformation(inst, card, pin, lang string, txDate time.Time) sip2.Message {
	m := sip2.Message{Code: "63", Fixed: []string{lang, sip2.FormatDate(txDate), "          "}}
	return withPin(m.Add("AO", inst).Add("AA", card).Add("AC", ""), pin)
}

// Checkout is an 11 of the item to the card, renewals not allowed by the kiosk's policy, with no
// due date of its own.
func Checkout(inst, card, pin, barcode string, txDate time.Time, noBlock bool) sip2.Message {
	m := sip2.Message{Code: "11", Fixed: []string{"N", yn(noBlock), sip2.FormatDate(txDate), sip2.BlankDate}}
	return withPin(m.Add("AO", inst).Add("AA", card).Add("AB", barcode).Add("AC", ""), pin)
}

// Checkin is a 09 of the item at the location, returned at txDate.
func Checkin(inst, location, barcode string, txDate time.Time, noBlock bool) sip2.Message {
	date := sip2.FormatDate(txDate)
	m := sip2.Message{Code: "09", Fixed: []string{yn(noBlock), date, date}}
	return m.Add("AP", location).Add("AO", inst).Add("AB", barcode).Add("AC", "")
}

// Renew is a 29 of the item for the card, third parties not allowed, with no due date of its own.
func Renew(inst, card, pin, barcode string, txDate time.Time, noBlock bool) sip2.Message {
	m := sip2.Message{Code: "29", Fixed: []string{"N", yn(noBlock), sip2.FormatDate(txDate), sip2.BlankDate}}
	return withPin(m.Add("AO", inst).Add("AA", card), pin).Add("AB", barcode).Add("AC", "")
}

// RenewAll is a 65 for the card.
func RenewAll(inst, card, pin string, txDate time.Time) sip2.Message {
	m := sip2.Message{Code: "65", Fixed: []string{sip2.FormatDate(txDate)}}
	return withPin(m.Add("AO", inst).Add("AA", card), pin).Add("AC", "")
}

// ItemInformation is a 17 for the item.
func ItemInformation(inst, barcode string, txDate time.Time) sip2.Message {
	m := sip2.Message{Code: "17", Fixed: []string{sip2.FormatDate(txDate)}}
	return m.Add("AO", inst).Add("AB", barcode).Add("AC", "")
}

// Hold is a 15: mode "+" to place, "-" to cancel, "*" to change; the pickup location only when
// it is not "".
func Hold(mode, inst, card, pin, barcode, pickup string, txDate time.Time) sip2.Message {
	m := sip2.Message{Code: "15", Fixed: []string{mode, sip2.FormatDate(txDate)}}
	if pickup != "" {
		m = m.Add("BS", pickup)
	}
	return withPin(m.Add("AO", inst).Add("AA", card), pin).Add("AB", barcode).Add("AC", "")
}

// FeePaid is a 37 paying amount (e.g. "2.50") of the fee feeID in cash, fee type other.
func FeePaid(inst, card, pin, feeID, amount, currency string, txDate time.Time) sip2.Message {
	m := sip2.Message{Code: "37", Fixed: []string{sip2.FormatDate(txDate), "01", "00", currency}}
	m = withPin(m.Add("BV", amount).Add("AO", inst).Add("AA", card).Add("AC", ""), pin)
	return m.Add("CG", feeID)
}

// EndSession is a 35 for the card.
func EndSession(inst, card, pin string, txDate time.Time) sip2.Message {
	m := sip2.Message{Code: "35", Fixed: []string{sip2.FormatDate(txDate)}}
	return withPin(m.Add("AO", inst).Add("AA", card).Add("AC", ""), pin)
}

func withPin(m sip2.Message, pin string) sip2.Message {
	if pin == "" {
		return m
	}
	return m.Add("AD", pin)
}

func yn(b bool) string {
	if b {
		return "Y"
	}
	return "N"
}
