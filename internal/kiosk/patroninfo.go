package kiosk

import (
	"context"
	"strconv"

	"library/internal/holds"
	"library/internal/loans"
	"library/internal/sip2"
)

// The summary field's places (63): the list of items the kiosk asks for, one at a time.
const (
	summaryHolds       = 0
	summaryOverdue     = 1
	summaryCharged     = 2
	summaryUnavailable = 5
)

// lists are a member's items as patron information counts and lists them.
type lists struct {
	holds, overdue, charged, unavailable []string
}

// patronInformation tells the member shown what they have and owe (63): the counts of their
// holds ready, overdue and charged items and holds waiting; the items of the one list the
// summary asks for, from BP to BQ; their limits, balance and fee limit.
func patronInformation(ctx context.Context, s *session, m sip2.Message) (sip2.Message, string) {
	o := s.srv.opts
	answer := sip2.Message{Code: "64", Fixed: []string{"              ", language(m), s.now(), "0000", "0000", "0000", "0000", "0000", "0000"},
		Fields: []sip2.Field{{ID: "AO", Value: o.Institution}, {ID: "AA", Value: m.Value("AA")}}}
	p, no := s.show(ctx, m)
	if no != nil {
		return no.patronAnswer(answer.Add("AE", ""), p), no.outcome
	}
	a, n, err := s.account(ctx, p)
	var l lists
	if err == nil {
		l, err = s.lists(ctx, p.memberID)
	}
	if err != nil {
		return failedAnswer(answer.Add("AE", ""), failed(s, "patron information", err)), outcomeFailed
	}
	answer.Fixed[0] = s.patronStatusField(a, n)
	answer.Fixed[3], answer.Fixed[4], answer.Fixed[5] = count4(len(l.holds)), count4(len(l.overdue)), count4(len(l.charged))
	answer.Fixed[8] = count4(len(l.unavailable))
	answer = answer.Add("AE", s.name(p, a)).Add("BZ", "0000").Add("CA", "0000").Add("CB", count4(o.MaxLoans)).
		Add("BL", "Y").Add("CQ", "Y").Add("BH", o.Currency).Add("BV", amount(a.Balance)).Add("CC", amount(o.BlockAt))
	summary := m.FixedField("summary")
	for place, field := range map[int]struct {
		id    string
		items []string
	}{summaryHolds: {"AS", l.holds}, summaryOverdue: {"AT", l.overdue}, summaryCharged: {"AU", l.charged}, summaryUnavailable: {"CD", l.unavailable}} {
		if place < len(summary) && summary[place] == 'Y' {
			for _, item := range window(field.items, m) {
				answer = answer.Add(field.id, item)
			}
		}
	}
	return answer, outcomeOK
}

// window is the items from BP to BQ (counted from 1, both included; all when unset).
func window(items []string, m sip2.Message) []string {
	start, err := strconv.Atoi(m.Value("BP"))
	if err != nil || start < 1 {
		start = 1
	}
	end, err := strconv.Atoi(m.Value("BQ"))
	if err != nil || end > len(items) {
		end = len(items)
	}
	if start > end {
		return nil
	}
	return items[start-1 : end]
}

// lists reads the member's loans and holds from the views.
func (s *session) lists(ctx context.Context, memberID string) (lists, error) {
	var l lists
	page, _, err := s.srv.svc.Loans.List(ctx, loans.Filter{MemberID: memberID, Limit: loans.MaxPageSize})
	if err != nil {
		return l, err
	}
	now := s.srv.opts.Now()
	for _, loan := range page.Loans {
		b, _, err := s.srv.svc.Books.Get(ctx, loan.BookID)
		if err != nil {
			return l, err
		}
		l.charged = append(l.charged, barcodeOf(b, loan.BookID))
		if loan.DueAt.Before(now) {
			l.overdue = append(l.overdue, barcodeOf(b, loan.BookID))
		}
	}
	held, _, err := s.srv.svc.Holds.List(ctx, holds.Filter{MemberID: memberID, Limit: holds.MaxPageSize})
	if err != nil {
		return l, err
	}
	for _, h := range held.Holds {
		if h.Until.IsZero() {
			l.unavailable = append(l.unavailable, h.Title)
		} else {
			l.holds = append(l.holds, h.Title)
		}
	}
	return l, nil
}
