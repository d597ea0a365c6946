package books

import (
	"encoding/json"
	"slices"

	"library/internal/aggregate"
	"library/internal/circulation"
)

// snapshotVersion names the encoding of a Book in snapshots: bump it whenever snapshotState or
// what it means changes, so that older snapshots are ignored rather than misread; and with an
// upcaster of a book event that makes Apply keep something new, so that the states folded
// before it are folded again through it (upcasters never touch snapshots).
const snapshotVersion = 7

// snapshotState is a Book as a snapshot keeps it.
type snapshotState struct {
	Added   bool     `json:"added"`
	ID      string   `json:"id,omitempty"`
	TitleID string   `json:"titleId,omitempty"`
	Barcode string   `json:"barcode,omitempty"`
	Title   string   `json:"title,omitempty"`
	Author  string   `json:"author,omitempty"`
	OnTitle bool     `json:"onTitle,omitempty"`
	Loan    *Loan    `json:"loan,omitempty"`
	Loans   []string `json:"loans,omitempty"`
	// Renewals and Terms are the current loan's.
	Renewals int                    `json:"renewals,omitempty"`
	Terms    *circulation.LoanTerms `json:"terms,omitempty"`
	// MaterialType and Price are the copy's.
	MaterialType string `json:"materialType,omitempty"`
	Price        int64  `json:"price,omitempty"`
	CallNumber   string `json:"callNumber,omitempty"`
	// Held is the hold shelf's, Queue the members waiting, first in line first.
	Held  *Held    `json:"held,omitempty"`
	Queue []string `json:"queue,omitempty"`
	// Missing is the copy's while it is lost or claimed returned.
	Missing *Missing `json:"missing,omitempty"`
}

func snapshotCodec() *aggregate.SnapshotCodec[Book] {
	return &aggregate.SnapshotCodec[Book]{Version: snapshotVersion, Encode: encodeSnapshot, Decode: decodeSnapshot}
}

func encodeSnapshot(b Book) ([]byte, error) {
	loans := make([]string, 0, len(b.loans))
	for id := range b.loans {
		loans = append(loans, id)
	}
	slices.Sort(loans)
	return json.Marshal(snapshotState{Added: b.Added, ID: b.ID, TitleID: b.TitleID, Barcode: b.Barcode, Title: b.Title, Author: b.Author, OnTitle: b.OnTitle,
		Loan: b.Loan, Loans: loans, Renewals: renewals(b), Terms: loanTerms(b), Held: b.Held, Queue: b.queue,
		MaterialType: b.MaterialType, Price: b.ReplacementPrice, CallNumber: b.CallNumber, Missing: b.Missing})
}

func decodeSnapshot(data []byte) (Book, error) {
	var s snapshotState
	if err := json.Unmarshal(data, &s); err != nil {
		return Book{}, err
	}
	b := NewBook()
	b.Added, b.ID, b.TitleID, b.Barcode, b.Title, b.Author, b.Loan = s.Added, s.ID, s.TitleID, s.Barcode, s.Title, s.Author, s.Loan
	b.OnTitle = s.OnTitle
	if b.Loan != nil {
		b.Loan.Renewals, b.Loan.Terms = s.Renewals, s.Terms
	}
	b.MaterialType, b.ReplacementPrice, b.CallNumber = s.MaterialType, s.Price, s.CallNumber
	b.Held, b.queue, b.Missing = s.Held, s.Queue, s.Missing
	for _, id := range s.Loans {
		b.loans[id] = true
	}
	return b, nil
}

// loanTerms are the current loan's terms, nil without a loan or terms.
func loanTerms(b Book) *circulation.LoanTerms {
	if b.Loan == nil {
		return nil
	}
	return b.Loan.Terms
}

// weigh estimates the bytes a Book takes in memory, for the aggregate cache.
func weigh(b Book) int {
	n := 192 + len(b.ID) + len(b.TitleID) + len(b.Barcode) + len(b.Title) + len(b.Author)
	if b.Loan != nil {
		n += 96 + len(b.Loan.LoanID) + len(b.Loan.MemberID)
	}
	for id := range b.loans {
		n += 48 + len(id)
	}
	for _, m := range b.queue {
		n += 16 + len(m)
	}
	if b.Held != nil {
		n += 64 + len(b.Held.MemberID)
	}
	if b.Missing != nil {
		n += 96 + len(b.Missing.LoanID) + len(b.Missing.MemberID)
	}
	return n
}

func renewals(b Book) int {
	if b.Loan == nil {
		return 0
	}
	return b.Loan.Renewals
}
