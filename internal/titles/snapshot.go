package titles

import (
	"encoding/json"

	"library/internal/aggregate"
)

// snapshotVersion names the encoding of a Title in snapshots: bump it whenever snapshotState or
// what it means changes, so that older snapshots are ignored rather than misread.
const snapshotVersion = 3

// snapshotState is a Title as a snapshot keeps it.
type snapshotState struct {
	Added     bool     `json:"added"`
	ID        string   `json:"id,omitempty"`
	Title     string   `json:"title,omitempty"`
	Authors   []string `json:"authors,omitempty"`
	ISBN      string   `json:"isbn,omitempty"`
	Year      int      `json:"year,omitempty"`
	Publisher string   `json:"publisher,omitempty"`
	Language  string   `json:"language,omitempty"`
	Subjects  []string `json:"subjects,omitempty"`
	// ControlNumber: a snapshot written before titles were imported has none, as its titles
	// had none.
	ControlNumber string `json:"controlNumber,omitempty"`
	Copies        []Copy `json:"copies,omitempty"`
	Holds         []Hold `json:"holds,omitempty"`
}

func snapshotCodec() *aggregate.SnapshotCodec[Title] {
	return &aggregate.SnapshotCodec[Title]{Version: snapshotVersion, Encode: encodeSnapshot, Decode: decodeSnapshot}
}

func encodeSnapshot(t Title) ([]byte, error) { return json.Marshal(snapshotState(t)) }

func decodeSnapshot(data []byte) (Title, error) {
	var s snapshotState
	if err := json.Unmarshal(data, &s); err != nil {
		return Title{}, err
	}
	return Title(s), nil
}

// weigh estimates the bytes a Title takes in memory, for the aggregate cache.
func weigh(t Title) int {
	n := 200 + len(t.ID) + len(t.Title) + len(t.ISBN) + len(t.Publisher) + len(t.Language) + len(t.ControlNumber)
	for _, a := range t.Authors {
		n += 16 + len(a)
	}
	for _, s := range t.Subjects {
		n += 16 + len(s)
	}
	for _, c := range t.Copies {
		n += 96 + len(c.BookID) + len(c.Barcode) + len(c.MemberID)
	}
	for _, h := range t.Holds {
		n += 64 + len(h.MemberID) + len(h.BookID)
	}
	return n
}
