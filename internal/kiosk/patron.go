package kiosk

import (
	"context"
	"crypto/hmac"
	"net/http"
	"strconv"
	"strings"

	"library/internal/accounts"
	"library/internal/errs"
	"library/internal/sip2"
)

// patron is the member a message is for, once their card and PIN are shown.
type patron struct {
	card, memberID string
}

// show checks the message's card (AA) and PIN (AD) and returns the member they show. A card
// shown in this session with the same PIN, or with no PIN given again, is not checked again. The
// error is the screen message: "Unknown card", "invalid" (a wrong PIN says nothing more), or the
// lockout's.
func (s *session) show(ctx context.Context, m sip2.Message) (patron, *refusal) {
	card := strings.TrimSpace(m.Value("AA"))
	if card == "" {
		return patron{}, refuse(outcomeInvalid, "Please scan your library card.")
	}
	pin, pinGiven := m.Field("AD")
	if s.shown.card == card && (!pinGiven || hmac.Equal(s.shown.pinMAC, s.pinMAC(pin))) {
		return patron{card: card, memberID: s.shown.memberID}, nil
	}
	memberID, err := s.srv.svc.Members.CardHolder(ctx, card)
	switch {
	case errs.Is(err, errs.NotFound):
		return patron{}, refuse(outcomeInvalid, "Unknown card: please see a librarian.")
	case err != nil:
		return patron{}, failed(s, "card", err)
	case !pinGiven:
		return patron{}, refuse(outcomeInvalid, "Please enter your PIN.")
	}
	s.shown = shownMember{card: card} // the origin of the PIN check names the card
	err = s.srv.svc.Members.CheckPIN(ctx, memberID, pin, s.origin(""))
	switch {
	case err == nil:
		s.shown = shownMember{card: card, memberID: memberID, pinMAC: s.pinMAC(pin)}
		return patron{card: card, memberID: memberID}, nil
	case errs.Is(err, errs.PINInvalid):
		s.shown = shownMember{}
		return patron{card: card, memberID: memberID}, refuse(outcomeInvalid, "invalid")
	case errs.Is(err, errs.PINLocked):
		s.shown = shownMember{}
		return patron{card: card, memberID: memberID}, refuse(outcomeInvalid, "Too many wrong PINs: this card is locked for now. Please see a librarian.")
	default:
		s.shown = shownMember{}
		return patron{}, failed(s, "PIN check", err)
	}
}

// may reports whether the rules let a kiosk do what the route does, for memberID, with p shown.
// A pattern may carry the query parameter whose rule it stands for ("/books?barcode=").
func (s *session) may(method, pattern string, p patron, memberID string) bool {
	path, query, _ := strings.Cut(pattern, "?")
	r, ok := s.srv.opts.Rules.Match(method, path, query)
	return ok && r.KioskMay(p.memberID, memberID)
}

// patronStatusField is the 14-character patron status: Y where a privilege is denied. The
// account's rules deny charges, renewals and holds above BLOCK_AT (positions 0, 1, 3, and 10 for
// the fines), and charges at MAX_LOANS (position 5).
func (s *session) patronStatusField(a accounts.Account, loans int) string {
	f := []byte(strings.Repeat(" ", 14))
	if a.Balance > s.srv.opts.BlockAt {
		for _, i := range []int{0, 1, 3, 10} {
			f[i] = 'Y'
		}
	}
	if loans >= s.srv.opts.MaxLoans {
		f[0], f[5] = 'Y', 'Y'
	}
	return string(f)
}

// amount writes cents as the protocol's money: "12.50"; negative for credit.
func amount(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return sign + strconv.FormatInt(cents/100, 10) + "." + strconv.FormatInt(100+cents%100, 10)[1:]
}

// yesNo is the protocol's Y or N.
func yesNo(b bool) string {
	if b {
		return "Y"
	}
	return "N"
}

// language is the answer's language: the request's, or 000 (unknown).
func language(m sip2.Message) string {
	if l := m.FixedField("language"); len(l) == 3 {
		return l
	}
	return "000"
}

func patronStatus(ctx context.Context, s *session, m sip2.Message) (sip2.Message, string) {
	p, no := s.show(ctx, m)
	answer := sip2.Message{Code: "24", Fixed: []string{strings.Repeat(" ", 14), language(m), s.now()},
		Fields: []sip2.Field{{ID: "AO", Value: s.srv.opts.Institution}, {ID: "AA", Value: m.Value("AA")}}}
	if no != nil {
		return no.patronAnswer(answer, p), no.outcome
	}
	a, n, err := s.account(ctx, p)
	if err != nil {
		return failedAnswer(answer, failed(s, "account", err)), outcomeFailed
	}
	answer.Fixed[0] = s.patronStatusField(a, n)
	return answer.Add("AE", s.name(p, a)).Add("BL", "Y").Add("CQ", "Y").
		Add("BH", s.srv.opts.Currency).Add("BV", amount(a.Balance)), outcomeOK
}

// account reads the shown member's account, with the count of their loans.
func (s *session) account(ctx context.Context, p patron) (accounts.Account, int, error) {
	a, _, err := s.srv.svc.Members.Get(ctx, p.memberID)
	if err != nil {
		return a, 0, err
	}
	return a, a.OnLoan(), nil
}

// name is the member's name, as the rules let a kiosk show it: to the member shown only.
func (s *session) name(p patron, a accounts.Account) string {
	if !s.may(http.MethodGet, "/accounts/{memberId}", p, p.memberID) {
		return ""
	}
	return a.Name
}
