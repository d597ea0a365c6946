package app

import (
	"context"
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

// loans reads a member's loans from the log (books.MemberLoans), in the order they were made,
// with the positions of their BookLent events.
func (e elsewhere) loans(ctx context.Context, memberID string) ([]accountsapi.ExportedLoan, map[int64]bool, error) {
	events, err := e.log.MemberEvents(ctx, memberID)
	if err != nil {
		return nil, nil, err
	}
	folded, err := books.MemberLoans(events)
	if err != nil {
		return nil, nil, err
	}
	loans := make([]accountsapi.ExportedLoan, len(folded))
	lentAt := make(map[int64]bool, len(folded))
	for i, l := range folded {
		loans[i] = accountsapi.ExportedLoan{BookID: l.BookID, LoanID: l.LoanID, LentAt: l.LentAt, DueAt: l.DueAt,
			ReturnedAt: l.ReturnedAt, DaysLate: l.DaysLate, Ended: l.Ended, EndedAt: l.EndedAt}
		lentAt[l.Position] = true
	}
	return loans, lentAt, nil
}

// OnLoan implements accountsapi.Elsewhere.
func (e elsewhere) OnLoan(ctx context.Context, memberID string) (int, error) {
	loans, _, err := e.loans(ctx, memberID)
	n := 0
	for _, l := range loans {
		if l.ReturnedAt == nil && l.Ended == "" { // open
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

// Export implements accountsapi.Elsewhere. The emails are looked up by loan id, which is a
// book's own: another member may have had a loan of another book under the same id. Only the
// emails about this member's own BookLent events, by their position, are theirs.
func (e elsewhere) Export(ctx context.Context, memberID string) ([]accountsapi.ExportedLoan, []accountsapi.ExportedEmail, error) {
	loans, lentAt, err := e.loans(ctx, memberID)
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
	emails := make([]accountsapi.ExportedEmail, 0, len(accepted))
	for _, a := range accepted {
		if !lentAt[a.Position] {
			continue
		}
		emails = append(emails, accountsapi.ExportedEmail{MessageID: a.MessageID, LoanID: a.LoanID, SentAt: a.AcceptedAt.UTC().Truncate(time.Microsecond)})
	}
	return loans, emails, nil
}
