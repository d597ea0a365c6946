package app

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"library/internal/accounts/accountsapi"
	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/notifications"
)

// memberForgetter drops the events waiting in the processors that name a member.
type memberForgetter interface {
	ForgetMember(ctx context.Context, memberID, streamID string) (int, error)
}

// memberEvents finds the events of the log that name a member (their loans and returns).
type memberEvents interface {
	MemberEvents(ctx context.Context, memberID string) ([]eventstore.Event, error)
}

// loansForExport lists the accepted emails of loans.
type loansForExport interface {
	ForLoans(ctx context.Context, loanIDs []string) ([]notifications.Acceptance, error)
}

// elsewhere is what the rest of the library keeps about members, for the accounts' erasure and
// export: their loans (from the log itself, not the catalog, which may be behind), the
// processors' waiting events, and the record of emails sent.
type elsewhere struct {
	log       memberEvents
	waiting   memberForgetter
	accepted  loansForExport
	streamIDs func(memberID string) string
}

var _ accountsapi.Elsewhere = elsewhere{}

// loans reads a member's loans from the log, in the order they were made.
func (e elsewhere) loans(ctx context.Context, memberID string) ([]accountsapi.ExportedLoan, error) {
	events, err := e.log.MemberEvents(ctx, memberID)
	if err != nil {
		return nil, err
	}
	byLoan := map[string]*accountsapi.ExportedLoan{}
	var out []*accountsapi.ExportedLoan
	for _, ev := range events {
		bookID, ok := strings.CutPrefix(ev.StreamID, books.Type().Name+"-")
		if !ok {
			continue
		}
		switch ev.Type {
		case books.BookLent{}.EventType():
			var lent books.BookLent
			if json.Unmarshal(ev.Data, &lent) == nil {
				l := &accountsapi.ExportedLoan{BookID: bookID, LoanID: lent.LoanID, LentAt: lent.LentAt, DueAt: lent.DueAt}
				byLoan[lent.LoanID], out = l, append(out, l)
			}
		case books.BookReturned{}.EventType():
			var back books.BookReturned
			if json.Unmarshal(ev.Data, &back) == nil && byLoan[back.LoanID] != nil {
				at, late := back.ReturnedAt, back.DaysLate
				byLoan[back.LoanID].ReturnedAt, byLoan[back.LoanID].DaysLate = &at, &late
			}
		}
	}
	loans := make([]accountsapi.ExportedLoan, len(out))
	for i, l := range out {
		loans[i] = *l
	}
	return loans, nil
}

// OnLoan implements accountsapi.Elsewhere.
func (e elsewhere) OnLoan(ctx context.Context, memberID string) (int, error) {
	loans, err := e.loans(ctx, memberID)
	n := 0
	for _, l := range loans {
		if l.ReturnedAt == nil {
			n++
		}
	}
	return n, err
}

// Forget implements accountsapi.Elsewhere.
func (e elsewhere) Forget(ctx context.Context, memberID string) error {
	_, err := e.waiting.ForgetMember(ctx, memberID, e.streamIDs(memberID))
	return err
}

// Export implements accountsapi.Elsewhere.
func (e elsewhere) Export(ctx context.Context, memberID string) ([]accountsapi.ExportedLoan, []accountsapi.ExportedEmail, error) {
	loans, err := e.loans(ctx, memberID)
	if err != nil {
		return nil, nil, err
	}
	ids := make([]string, len(loans))
	for i, l := range loans {
		ids[i] = l.LoanID
	}
	accepted, err := e.accepted.ForLoans(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	emails := make([]accountsapi.ExportedEmail, len(accepted))
	for i, a := range accepted {
		emails[i] = accountsapi.ExportedEmail{MessageID: a.MessageID, LoanID: a.LoanID, SentAt: a.AcceptedAt.UTC().Truncate(time.Microsecond)}
	}
	return loans, emails, nil
}
