package kiosk

import (
	"context"
	"fmt"
	"net/http"

	"library/internal/books"
	"library/internal/sip2"
)

// count4 is a count as the protocol's four digits, 9999 at most.
func count4(n int) string { return fmt.Sprintf("%04d", min(n, 9999)) }

// The circulation statuses of item information (18) the service tells.
const (
	statusAvailable       = "03"
	statusCharged         = "04"
	statusOnHold          = "08" // waiting on the hold shelf
	statusClaimedReturned = "11"
	statusLost            = "12"
)

// itemInformation tells what the copy is doing (17): on the shelf, on loan and until when, on
// the hold shelf and until when, or missing (lost, or claimed returned); and how many members
// wait for it.
func itemInformation(ctx context.Context, s *session, m sip2.Message) (sip2.Message, string) {
	answer := sip2.Message{Code: "18", Fixed: []string{"01", "00", "01", s.now()}}
	if no := s.mayFor(http.MethodGet, "/books?barcode=", patron{}, ""); no != nil {
		return answer.Add("AB", m.Value("AB")).Add("AJ", "").Add("AF", no.screen), no.outcome
	}
	b, no := s.item(ctx, m)
	if no != nil {
		return answer.Add("AB", m.Value("AB")).Add("AJ", "").Add("AF", no.screen), no.outcome
	}
	waiting, err := s.waiting(ctx, b)
	if err != nil {
		no := failed(s, "item information", err)
		return answer.Add("AB", m.Value("AB")).Add("AJ", b.Title).Add("AF", no.screen), no.outcome
	}
	answer.Fixed[0] = statusAvailable
	answer = answer.Add("CF", fmt.Sprint(waiting))
	switch {
	case b.Loan != nil:
		answer.Fixed[0] = statusCharged
		answer = answer.Add("AH", sip2.FormatDateUTC(b.Loan.DueAt))
	case b.Held != nil:
		answer.Fixed[0] = statusOnHold
		answer = answer.Add("CM", sip2.FormatDateUTC(b.Held.Until))
	case b.Missing != nil && b.Missing.Status == books.StatusLost:
		answer.Fixed[0] = statusLost
	case b.Missing != nil:
		answer.Fixed[0] = statusClaimedReturned
	}
	return answer.Add("AB", m.Value("AB")).Add("AJ", b.Title).Add("AQ", s.srv.opts.Institution), outcomeOK
}

// waiting counts the members waiting for the copy: in its title's queue, those a copy like it
// can serve; for a copy on no title, its own queue.
func (s *session) waiting(ctx context.Context, b books.Book) (int, error) {
	if !b.OnTitle {
		return len(b.Queue()), nil
	}
	t, _, err := s.srv.svc.Titles.ReadQueue(ctx, b.TitleID)
	if err != nil {
		return 0, err
	}
	return t.Waiting(b.ID), nil
}

// hold places (+) or cancels (-) the shown member's hold on the copy's title (15), once per
// transaction; a change of a hold (*) is refused: the kiosk cancels and places instead.
func hold(ctx context.Context, s *session, m sip2.Message) (sip2.Message, string) {
	answer := sip2.Message{Code: "16", Fixed: []string{"0", "N", s.now()},
		Fields: []sip2.Field{{ID: "AO", Value: s.srv.opts.Institution}, {ID: "AA", Value: m.Value("AA")}}}
	p, no := s.show(ctx, m)
	var b books.Book
	if no == nil {
		b, no = s.item(ctx, m)
	}
	mode := m.FixedField("hold mode")
	route := map[string]string{"+": "/titles/{titleId}/holds", "-": "/titles/{titleId}/holds/{memberId}"}[mode]
	method := map[string]string{"+": http.MethodPost, "-": http.MethodDelete}[mode]
	if no == nil && route == "" {
		no = refuse(outcomeRefused, "A hold is placed or cancelled here, not changed.")
	}
	if no == nil {
		no = s.mayFor(method, route, p, p.memberID)
	}
	if no != nil {
		return answer.Add("AB", m.Value("AB")).Add("AF", no.screen), no.outcome
	}
	id := transactionID(s.terminal, m.Code, m.FixedField("transaction date"), mode, p.card, b.ID)
	var err error
	if mode == "+" {
		_, err = s.srv.svc.Books.PlaceHold(ctx, b.ID, books.PlaceHold{MemberID: p.memberID}, s.origin(id))
	} else {
		_, err = s.srv.svc.Books.CancelHold(ctx, b.ID, books.CancelHold{MemberID: p.memberID}, s.origin(id))
	}
	if err != nil {
		no := failed(s, "hold", err)
		return answer.Add("AB", m.Value("AB")).Add("AJ", b.Title).Add("AF", no.screen), no.outcome
	}
	answer.Fixed[0] = "1"
	screen := "Your hold is cancelled."
	if mode == "+" {
		screen = "Your hold is placed: we will let you know when a copy is ready for you."
	}
	return answer.Add("AB", m.Value("AB")).Add("AJ", b.Title).Add("AF", screen), outcomeOK
}
