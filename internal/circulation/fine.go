package circulation

import "math"

// LoanTerms are the terms a loan is made on, kept with the loan: its fine is computed from
// them, not from the table, so that a table changed while a book is out changes nothing of
// that loan. They say whose terms they are (the borrower's group, the copy's material type) and
// the version of the table that made them. Stored data (BookLent and LoanRenewed carry them):
// add fields with omitempty, and never rename or remove one.
type LoanTerms struct {
	Group           string  `json:"group"`
	MaterialType    string  `json:"materialType"`
	FinePerDay      int64   `json:"finePerDay"`
	FineCap         FineCap `json:"fineCap"`
	RenewalsAllowed int     `json:"renewalsAllowed"`
	LostAfter       int     `json:"lostAfter"`
	RulesVersion    int64   `json:"rulesVersion"`
}

// Loan returns the terms of a loan made on t, for group and materialType, under the table at
// rulesVersion.
func (t Terms) Loan(group, materialType string, rulesVersion int64) LoanTerms {
	return LoanTerms{Group: group, MaterialType: materialType, FinePerDay: t.FinePerDay, FineCap: t.FineCap,
		RenewalsAllowed: t.Renewals, LostAfter: t.LostAfter, RulesVersion: rulesVersion}
}

// Fine is what a return lateDays late costs on terms, in cents: the fine per day times the
// late days, capped by the terms' cap, which is its amount, or replacementPrice when the cap
// is the replacement price. A replacement price of 0 or less is one nobody recorded, and
// caps nothing: the fine is then per day times days, uncapped. No late days (0 or fewer), or
// no fine per day, cost nothing; a product too large for an int64 is capped at the largest.
func Fine(terms LoanTerms, lateDays int, replacementPrice int64) int64 {
	if lateDays <= 0 || terms.FinePerDay <= 0 {
		return 0
	}
	fine := int64(math.MaxInt64)
	if terms.FinePerDay <= math.MaxInt64/int64(lateDays) {
		fine = terms.FinePerDay * int64(lateDays)
	}
	switch {
	case terms.FineCap.ReplacementPrice && replacementPrice > 0:
		return min(fine, replacementPrice)
	case terms.FineCap.ReplacementPrice:
		return fine
	default:
		return min(fine, max(terms.FineCap.Amount, 0))
	}
}
