package loans

import (
	"encoding/base64"
	"encoding/binary"
	"strconv"
	"strings"
	"time"

	"library/internal/errs"
	"library/internal/validate"
)

// The limits of GET /loans and GET /accounts/{memberId}/loans.
const (
	// DefaultPageSize is the loans per page when the client does not say.
	DefaultPageSize = 100
	// MaxPageSize is the most loans a page may hold, and the most a member's own list shows.
	MaxPageSize = 1000
)

// Key is a loan's place in the order pages follow: due time, then book id, then loan id, ids
// compared byte by byte (PostgreSQL's "C" collation).
type Key struct {
	DueAt          time.Time
	BookID, LoanID string
}

// Less reports whether k comes before o.
func (k Key) Less(o Key) bool { return k.Compare(o) < 0 }

// Compare is -1, 0 or +1 as k comes before, at or after o.
func (k Key) Compare(o Key) int {
	if c := k.DueAt.Compare(o.DueAt); c != 0 {
		return c
	}
	if c := strings.Compare(k.BookID, o.BookID); c != 0 {
		return c
	}
	return strings.Compare(k.LoanID, o.LoanID)
}

// Filter chooses one page of the view: the loans after After, in key order, of MemberID and
// due before DueBefore when they are set, at most Limit of them.
type Filter struct {
	// MemberID keeps the loans of one member; "" keeps everyone's.
	MemberID string
	// DueBefore keeps the loans due before it (overdue=true: the service's clock); zero keeps
	// every loan.
	DueBefore time.Time
	// After is the key of the last loan of the page before; nil for the first page.
	After *Key
	// Limit is the most loans on the page, 1 to MaxPageSize; 0 means DefaultPageSize.
	Limit int
}

// PageSize is the filter's limit with the default applied.
func (f Filter) PageSize() int {
	if f.Limit == 0 {
		return DefaultPageSize
	}
	return f.Limit
}

// Matches reports whether a loan is one the filter keeps, whatever its place.
func (f Filter) Matches(l Loan) bool {
	return (f.MemberID == "" || l.MemberID == f.MemberID) && (f.DueBefore.IsZero() || l.DueAt.Before(f.DueBefore))
}

// Check refuses a filter that no request could make.
func (f Filter) Check() error {
	if f.Limit < 0 || f.Limit > MaxPageSize {
		return errs.E(errs.InvalidRequest, "limit must be a whole number from 1 to %d", MaxPageSize)
	}
	if f.MemberID != "" {
		if err := validate.MemberID("memberId", f.MemberID); err != nil {
			return err
		}
	}
	return nil
}

// Page is one page of the view.
type Page struct {
	Loans []Loan
	// More is true when loans after the last one match the filter.
	More bool
}

// Next is the cursor of the page after this one, "" when this is the last.
func (p Page) Next() string {
	if !p.More || len(p.Loans) == 0 {
		return ""
	}
	return encodeCursor(p.Loans[len(p.Loans)-1].key())
}

// ParseFilter reads GET /loans's query parameters as sent (an empty one counts as left out),
// with now the service's clock for overdue. It refuses anything out of the contract with
// errs.InvalidRequest.
func ParseFilter(memberID, overdue, limit, cursor string, now time.Time) (Filter, error) {
	f := Filter{MemberID: memberID}
	if memberID != "" {
		if err := validate.MemberID("memberId", memberID); err != nil {
			return f, err
		}
	}
	switch overdue {
	case "", "false":
	case "true":
		f.DueBefore = stored(now)
	default:
		return f, errs.E(errs.InvalidRequest, "overdue must be true or false")
	}
	var err error
	if f.Limit, err = parseLimit(limit); err != nil {
		return f, err
	}
	if cursor != "" {
		k, err := decodeCursor(cursor)
		if err != nil {
			return f, err
		}
		f.After = &k
	}
	return f, nil
}

// parseLimit reads a page size: digits only (no sign, no spaces), 1 to MaxPageSize.
func parseLimit(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxPageSize || strings.TrimLeft(s, "0123456789") != "" {
		return 0, errs.E(errs.InvalidRequest, "limit must be a whole number from 1 to %d", MaxPageSize)
	}
	return n, nil
}

// A cursor is the unpadded base64url encoding of cursorVersion, the due time in microseconds
// since 1970 (8 bytes, big-endian, two's complement), the length of the book id (1 byte), the
// book id and the loan id. Clients are told it is opaque, so that its form may change: a new
// form takes a new version byte.
const cursorVersion = 1

// maxCursorLength is the length of the longest cursor: that of two of the longest ids.
var maxCursorLength = base64.RawURLEncoding.EncodedLen(1 + 8 + 1 + 2*validate.MaxIDLength)

func encodeCursor(k Key) string {
	b := make([]byte, 0, 10+len(k.BookID)+len(k.LoanID))
	b = append(b, cursorVersion)
	b = binary.BigEndian.AppendUint64(b, uint64(k.DueAt.UnixMicro()))
	b = append(b, byte(len(k.BookID)))
	b = append(b, k.BookID...)
	b = append(b, k.LoanID...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor returns the key in a cursor, refusing whatever encodeCursor could not have made.
// Strict decoding allows one encoding per cursor.
func decodeCursor(c string) (Key, error) {
	bad := errs.E(errs.InvalidRequest, "cursor must be the next of an earlier page, as the service returned it")
	if len(c) > maxCursorLength {
		return Key{}, bad
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(c)
	if err != nil || len(b) < 10 || b[0] != cursorVersion {
		return Key{}, bad
	}
	due := time.UnixMicro(int64(binary.BigEndian.Uint64(b[1:9]))).UTC()
	n := int(b[9])
	rest := b[10:]
	if n > len(rest) {
		return Key{}, bad
	}
	k := Key{DueAt: due, BookID: string(rest[:n]), LoanID: string(rest[n:])}
	if !validate.IsID(k.BookID) || !validate.IsID(k.LoanID) || due.Year() < 1 || due.Year() > 9999 {
		return Key{}, bad
	}
	return k, nil
}
