package kiosk

import (
	"context"
	"net/http"
	"time"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/sip2"
)

// item is the copy a message names by barcode (AB).
func (s *session) item(ctx context.Context, m sip2.Message) (books.Book, *refusal) {
	b, _, err := s.srv.svc.Books.FindByBarcode(ctx, m.Value("AB"))
	switch {
	case err == nil:
		return b, nil
	case errs.Is(err, errs.NotFound) || errs.Is(err, errs.InvalidRequest):
		return books.Book{}, refuse(outcomeRefused, screens[errs.NotFound])
	}
	return books.Book{}, failed(s, "item", err)
}

// answeredAt is the transaction date of an answer made from what a command recorded: when it
// was recorded, which a retry reads back the same; the kiosk's own date when nothing was.
func answeredAt(r aggregate.Result, m sip2.Message) string {
	if len(r.Events) > 0 {
		return sip2.FormatDateUTC(r.Events[0].RecordedAt)
	}
	if d := m.FixedField("transaction date"); len(d) == sip2.DateLength {
		return d
	}
	return sip2.BlankDate
}

// recorded returns the first event of type T in r.
func recorded[T any](r aggregate.Result) (T, bool) {
	for _, e := range r.Events {
		if t, ok := e.Data.(T); ok {
			return t, true
		}
	}
	var zero T
	return zero, false
}

// checkout lends the copy to the member shown (11). The loan id and the command id are the
// transaction's (transactionID), so the same message again lends nothing more and is answered
// from the loan the first recorded.
func checkout(ctx context.Context, s *session, m sip2.Message) (sip2.Message, string) {
	answer := sip2.Message{Code: "12", Fixed: []string{"0", "N", "U", "N", s.now()},
		Fields: []sip2.Field{{ID: "AO", Value: s.srv.opts.Institution}, {ID: "AA", Value: m.Value("AA")}, {ID: "AB", Value: m.Value("AB")}}}
	p, no := s.show(ctx, m)
	if no == nil {
		no = s.mayFor(http.MethodPost, "/books/{bookId}/loans", p, p.memberID)
	}
	if no != nil {
		return answer.Add("AJ", "").Add("AH", "").Add("AF", no.screen), no.outcome
	}
	b, no := s.item(ctx, m)
	if no != nil {
		return answer.Add("AJ", "").Add("AH", "").Add("AF", no.screen), no.outcome
	}
	id := transactionID(s.terminal, m.Code, m.FixedField("transaction date"), p.card, b.ID)
	lend := books.LendBook{LoanID: id, MemberID: p.memberID}
	if m.FixedField("no block") == "Y" {
		var no *refusal
		if lend, no = s.offline(m, lend); no != nil {
			return answer.Add("AJ", b.Title).Add("AH", "").Add("AF", no.screen), no.outcome
		}
	}
	r, err := s.srv.svc.Books.Lend(ctx, b.ID, lend, s.origin(id))
	if errs.Is(err, errs.BookAlreadyLent) && b.Loan != nil && b.Loan.MemberID == p.memberID {
		answer.Fixed[0], answer.Fixed[3] = "1", "Y"
		return answer.Add("AJ", b.Title).Add("AH", sip2.FormatDateUTC(b.Loan.DueAt)).
			Add("AF", "You already have this item: it is due "+b.Loan.DueAt.Format(time.DateOnly)+"."), outcomeOK
	}
	if err != nil {
		no := failed(s, "checkout", err)
		return answer.Add("AJ", b.Title).Add("AH", "").Add("AF", no.screen), no.outcome
	}
	lent, _ := recorded[books.BookLent](r)
	answer.Fixed[0], answer.Fixed[3], answer.Fixed[4] = "1", "Y", answeredAt(r, m)
	return answer.Add("AJ", b.Title).Add("AH", sip2.FormatDateUTC(lent.DueAt)).
		Add("AF", "Due "+lent.DueAt.Format(time.DateOnly)+"."), outcomeOK
}

// mayFor is the rules' refusal of a kiosk's doing what the route does for memberID, nil when
// they let it.
func (s *session) mayFor(method, pattern string, p patron, memberID string) *refusal {
	if s.may(method, pattern, p, memberID) {
		return nil
	}
	return refuse(outcomeRefused, "This cannot be done here: please see a librarian.")
}

// checkin returns the copy, whoever had it (09): a book drop's return. A copy that a member
// waits for goes to the hold shelf, and the answer says so (alert, alert type 01, and the
// pickup date in CM and the screen message), so that a sorter sends it there; who it is held for
// is shown only as the rules let a kiosk see a member, which is never a member not shown.
func checkin(ctx context.Context, s *session, m sip2.Message) (sip2.Message, string) {
	answer := sip2.Message{Code: "10", Fixed: []string{"0", "N", "U", "N", s.now()},
		Fields: []sip2.Field{{ID: "AO", Value: s.srv.opts.Institution}, {ID: "AB", Value: m.Value("AB")}, {ID: "AQ", Value: s.srv.opts.Institution}}}
	if no := s.mayFor(http.MethodPost, "/books/{bookId}/returns", patron{}, ""); no != nil {
		return answer.Add("AF", no.screen), no.outcome
	}
	b, no := s.item(ctx, m)
	if no != nil {
		return answer.Add("AF", no.screen), no.outcome
	}
	id := transactionID(s.terminal, m.Code, m.FixedField("transaction date"), b.ID)
	r, err := s.srv.svc.Books.Return(ctx, b.ID, books.ReturnBook{Current: true}, s.origin(id))
	if err != nil {
		no := failed(s, "checkin", err)
		return answer.Add("AJ", b.Title).Add("AF", no.screen), no.outcome
	}
	answer.Fixed[0], answer.Fixed[1], answer.Fixed[4] = "1", "Y", answeredAt(r, m)
	answer = answer.Add("AJ", b.Title)
	if held, ok := recorded[books.BookHeld](r); ok {
		answer.Fixed[1], answer.Fixed[3] = "N", "Y"
		day := held.Until.Format(time.DateOnly)
		return answer.Add("CV", "01").Add("CM", sip2.FormatDateUTC(held.Until)).
			Add("AF", "Hold shelf: held for pickup until "+day+"."), outcomeOK
	}
	if _, ok := recorded[books.BookReturned](r); !ok {
		return answer.Add("AF", "This item was not on loan."), outcomeOK
	}
	return answer.Add("AF", "Thank you."), outcomeOK
}
