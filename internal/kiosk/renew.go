package kiosk

import (
	"context"
	"net/http"
	"time"

	"library/internal/books"
	"library/internal/loans"
	"library/internal/sip2"
)

// renew renews the shown member's loan of the copy (29), once per transaction.
func renew(ctx context.Context, s *session, m sip2.Message) (sip2.Message, string) {
	answer := sip2.Message{Code: "30", Fixed: []string{"0", "N", "U", "N", s.now()},
		Fields: []sip2.Field{{ID: "AO", Value: s.srv.opts.Institution}, {ID: "AA", Value: m.Value("AA")}, {ID: "AB", Value: m.Value("AB")}}}
	p, no := s.show(ctx, m)
	var b books.Book
	if no == nil {
		b, no = s.item(ctx, m)
	}
	if no == nil {
		no = s.renewable(b, p)
	}
	if no != nil {
		return answer.Add("AJ", b.Title).Add("AF", no.screen), no.outcome
	}
	due, r, no := s.renewOne(ctx, m, p, b)
	if no != nil {
		return answer.Add("AJ", b.Title).Add("AF", no.screen), no.outcome
	}
	answer.Fixed[0], answer.Fixed[1], answer.Fixed[3], answer.Fixed[4] = "1", "Y", "Y", r
	return answer.Add("AJ", b.Title).Add("AH", sip2.FormatDateUTC(due)).
		Add("AF", "Renewed: due "+due.Format(time.DateOnly)+"."), outcomeOK
}

// renewable refuses the renewal of a copy that is not on loan to the member shown.
func (s *session) renewable(b books.Book, p patron) *refusal {
	if b.Loan == nil || b.Loan.MemberID != p.memberID {
		return refuse(outcomeRefused, "This item is not on loan to you.")
	}
	return s.mayFor(http.MethodPost, "/books/{bookId}/loans/{loanId}/renewals", p, b.Loan.MemberID)
}

// renewOne renews b's loan under the transaction's id, and returns the new due time and the
// answer's transaction date, both as the first try recorded them.
func (s *session) renewOne(ctx context.Context, m sip2.Message, p patron, b books.Book) (time.Time, string, *refusal) {
	id := transactionID(s.terminal, m.Code, m.FixedField("transaction date"), p.card, b.ID)
	r, err := s.srv.svc.Books.Renew(ctx, b.ID, books.RenewLoan{LoanID: b.Loan.LoanID, Borrower: p.memberID}, s.origin(id))
	if err != nil {
		return time.Time{}, "", failed(s, "renewal", err)
	}
	renewed, _ := recorded[books.LoanRenewed](r)
	return renewed.DueAt, answeredAt(r, m), nil
}

// renewAll renews every loan of the member shown that may be (65), each once per transaction;
// the answer lists the barcodes renewed (BM) and those not (BN).
func renewAll(ctx context.Context, s *session, m sip2.Message) (sip2.Message, string) {
	answer := sip2.Message{Code: "66", Fixed: []string{"0", "0000", "0000", s.now()},
		Fields: []sip2.Field{{ID: "AO", Value: s.srv.opts.Institution}}}
	p, no := s.show(ctx, m)
	if no != nil {
		return answer.Add("AF", no.screen), no.outcome
	}
	page, _, err := s.srv.svc.Loans.List(ctx, loans.Filter{MemberID: p.memberID, Limit: loans.MaxPageSize})
	if err != nil {
		no := failed(s, "renew all", err)
		return answer.Add("AF", no.screen), no.outcome
	}
	var renewed, unrenewed []string
	for _, l := range page.Loans {
		b, _, err := s.srv.svc.Books.Get(ctx, l.BookID)
		if err != nil || s.renewable(b, p) != nil {
			unrenewed = append(unrenewed, barcodeOf(b, l.BookID))
			continue
		}
		if _, _, no := s.renewOne(ctx, m, p, b); no != nil {
			unrenewed = append(unrenewed, barcodeOf(b, l.BookID))
			continue
		}
		renewed = append(renewed, barcodeOf(b, l.BookID))
	}
	answer.Fixed[0], answer.Fixed[1], answer.Fixed[2] = "1", count4(len(renewed)), count4(len(unrenewed))
	for _, r := range renewed {
		answer = answer.Add("BM", r)
	}
	for _, u := range unrenewed {
		answer = answer.Add("BN", u)
	}
	return answer, outcomeOK
}

// barcodeOf is how a kiosk knows a copy: its barcode, or its id when it has none.
func barcodeOf(b books.Book, id string) string {
	if b.Barcode != "" {
		return b.Barcode
	}
	return id
}
