package accountsapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"library/internal/accounts"
	"library/internal/auth"
	"library/internal/errs"
	"library/internal/httpapi"
	"library/internal/httpapi/commandhttp"
)

// Elsewhere is what other parts of the library keep about a member: for an erasure to check,
// and an export to list.
type Elsewhere interface {
	// OnLoan counts the books lent to the member now.
	OnLoan(ctx context.Context, memberID string) (int, error)
	// Forget scrubs the copies of the member's data that other parts keep (parked and
	// deferred events naming them). It runs after the erasure is recorded, and again when an
	// erasure is asked for again, so that an interrupted one is finished.
	Forget(ctx context.Context, memberID string) error
	// Export lists the member's loans and the emails the library sent them.
	Export(ctx context.Context, memberID string) (Loans []ExportedLoan, Emails []ExportedEmail, err error)
}

// ExportedLoan is a loan in a member's export.
type ExportedLoan struct {
	BookID     string     `json:"bookId"`
	LoanID     string     `json:"loanId"`
	LentAt     time.Time  `json:"lentAt"`
	DueAt      time.Time  `json:"dueAt"`
	ReturnedAt *time.Time `json:"returnedAt"`
	DaysLate   *int       `json:"daysLate"`
	// Ended says how a loan ended without a return ("lost", "claimedReturned"), EndedAt when.
	Ended   string     `json:"ended,omitempty"`
	EndedAt *time.Time `json:"endedAt,omitempty"`
}

// ExportedEmail is an email the library sent a member.
type ExportedEmail struct {
	MessageID string    `json:"messageId"`
	LoanID    string    `json:"loanId"`
	SentAt    time.Time `json:"sentAt"`
}

// erase forgets a member, once their account is settled and no book is on loan to them.
func (h Routes) erase(w http.ResponseWriter, r *http.Request) error {
	memberID, err := httpapi.PathID(r, "memberId")
	if err != nil {
		return err
	}
	origin, err := commandhttp.CommandOrigin(r)
	if err != nil {
		return err
	}
	account, _, err := h.Service.Get(r.Context(), memberID)
	if err != nil {
		return err
	}
	if !account.Erased {
		onLoan, err := h.Elsewhere.OnLoan(r.Context(), memberID)
		if err != nil {
			return err
		}
		if onLoan > 0 {
			return errs.E(errs.AccountNotSettled, "the account is not settled: %s on loan to this member", accounts.BooksStill(onLoan))
		}
	}
	result, err := h.Service.Erase(r.Context(), memberID, origin)
	if err != nil {
		return err
	}
	if err := h.Elsewhere.Forget(r.Context(), memberID); err != nil {
		return err
	}
	commandhttp.WriteResult(w, r, result)
	return nil
}

// exportView is GET /accounts/{memberId}/export: everything the library keeps about the member
// (GDPR Art. 15), their personal values opened.
type exportView struct {
	MemberID   string          `json:"memberId"`
	ExportedAt time.Time       `json:"exportedAt"`
	Account    accountView     `json:"account"`
	Events     []historyEntry  `json:"events"`
	Fines      []exportedFine  `json:"fines"`
	Loans      []ExportedLoan  `json:"loans"`
	Emails     []ExportedEmail `json:"emails"`
}

type exportedFine struct {
	Amount     int64     `json:"amount"`
	Reason     string    `json:"reason"`
	LoanID     *string   `json:"loanId"`
	RecordedAt time.Time `json:"recordedAt"`
}

func (h Routes) export(w http.ResponseWriter, r *http.Request) error {
	memberID, err := httpapi.PathID(r, "memberId")
	if err != nil {
		return err
	}
	ctx := r.Context()
	account, version, err := h.Service.Get(ctx, memberID)
	if err != nil {
		return err
	}
	if account.Erased {
		return errs.E(errs.Gone, "this member's account was erased: the library keeps nothing readable of them")
	}
	stored, opened, err := h.Service.Everything(ctx, memberID)
	if err != nil {
		return err
	}
	view := exportView{MemberID: memberID, ExportedAt: time.Now().UTC(), Account: viewOf(memberID, account, version),
		Events: []historyEntry{}, Fines: []exportedFine{}}
	for i, e := range stored {
		if opened[i] == nil {
			continue
		}
		data, err := json.Marshal(accounts.Shown(opened[i])) // no PIN's hash, even to its member
		if err != nil {
			return err
		}
		view.Events = append(view.Events, historyEntry{Version: e.Version, Position: e.Position, RecordedAt: e.RecordedAt.UTC(),
			Type: e.Type, Data: data, By: shownActor(e.Metadata.Actor, auth.AccessFrom(ctx))})
		if f, ok := opened[i].(accounts.FineCharged); ok {
			fine := exportedFine{Amount: f.Amount, Reason: f.Reason, RecordedAt: e.RecordedAt.UTC()}
			if f.LoanID != "" {
				fine.LoanID = &f.LoanID
			}
			view.Fines = append(view.Fines, fine)
		}
	}
	if view.Loans, view.Emails, err = h.Elsewhere.Export(ctx, memberID); err != nil {
		return err
	}
	httpapi.WriteJSON(w, r, http.StatusOK, view)
	return nil
}
