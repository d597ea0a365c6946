package holds

import (
	"cmp"
	"encoding/base64"
	"encoding/binary"
	"strconv"
	"strings"
	"time"

	"library/internal/errs"
	"library/internal/validate"
)

// The limits of GET /holds and GET /accounts/{memberId}/holds.
const (
	// DefaultPageSize is the holds per page when the client does not say.
	DefaultPageSize = 100
	// MaxPageSize is the most holds a page may hold, and the most a member's own list shows.
	MaxPageSize = 1000
)

// Key is a hold's place in the order pages follow. The hold shelf (status=ready) is in
// (Until, BookID, Seq) order, soonest to leave first; every other page in (BookID, Seq) order:
// each book's holder first, then its queue in order. Ids compare byte by byte (PostgreSQL's
// "C" collation).
type Key struct {
	// Until is the ready hold's, in the shelf's order; zero in the queues' order.
	Until  time.Time
	BookID string
	Seq    int64
}

// compareQueue orders keys as the queues' pages go.
func compareQueue(a, b Key) int {
	if c := strings.Compare(a.BookID, b.BookID); c != 0 {
		return c
	}
	return cmp.Compare(a.Seq, b.Seq)
}

// compareShelf orders keys as the hold shelf's pages go.
func compareShelf(a, b Key) int {
	if c := a.Until.Compare(b.Until); c != 0 {
		return c
	}
	return compareQueue(a, b)
}

// key is the hold's place in the order of pages: the shelf's when shelf is true.
func (h Hold) key(shelf bool) Key {
	if shelf {
		return Key{Until: h.Until, BookID: h.BookID, Seq: h.Seq}
	}
	return Key{BookID: h.BookID, Seq: h.Seq}
}

// Filter chooses one page of the view: the holds after After, in the order its Status gives,
// of BookID and MemberID when they are set, at most Limit of them.
type Filter struct {
	// Status is Waiting, Ready (the hold shelf, in its own order), or "" for both.
	Status string
	// BookID keeps one book's holds; "" keeps every book's.
	BookID string
	// MemberID keeps one member's holds; "" keeps everyone's.
	MemberID string
	// AfterKey is the key of the last hold of the page before; nil for the first page.
	After *Key
	// Limit is the most holds on the page, 1 to MaxPageSize; 0 means DefaultPageSize.
	Limit int
}

// Shelf reports whether the filter's pages are in the hold shelf's order.
func (f Filter) Shelf() bool { return f.Status == Ready }

// AfterKey is the key the page starts after; the zero Key for the first page.
func (f Filter) AfterKey() Key {
	if f.After == nil {
		return Key{}
	}
	return *f.After
}

// PageSize is the filter's limit with the default applied.
func (f Filter) PageSize() int {
	if f.Limit == 0 {
		return DefaultPageSize
	}
	return f.Limit
}

// Matches reports whether a hold is one the filter keeps, whatever its place.
func (f Filter) Matches(h Hold) bool {
	return (f.Status == "" || h.Status() == f.Status) && (f.BookID == "" || h.BookID == f.BookID) &&
		(f.MemberID == "" || h.MemberID == f.MemberID)
}

// Check refuses a filter that no request could make.
func (f Filter) Check() error {
	if err := checkStatus(f.Status); err != nil {
		return err
	}
	if f.Limit < 0 || f.Limit > MaxPageSize {
		return errs.E(errs.InvalidRequest, "limit must be a whole number from 1 to %d", MaxPageSize)
	}
	if f.BookID != "" {
		if err := validate.ID("bookId", f.BookID); err != nil {
			return err
		}
	}
	if f.MemberID != "" {
		if err := validate.MemberID("memberId", f.MemberID); err != nil {
			return err
		}
	}
	return nil
}

func checkStatus(status string) error {
	switch status {
	case "", Waiting, Ready:
		return nil
	}
	return errs.E(errs.InvalidRequest, "status must be waiting or ready")
}

// Page is one page of the view.
type Page struct {
	Holds []Hold
	// More is true when holds after the last one match the filter.
	More bool
	// Shelf is true when the page is in the hold shelf's order.
	Shelf bool
}

// Next is the cursor of the page after this one, "" when this is the last.
func (p Page) Next() string {
	if !p.More || len(p.Holds) == 0 {
		return ""
	}
	return encodeCursor(p.Holds[len(p.Holds)-1].key(p.Shelf), p.Shelf)
}

// ParseFilter reads GET /holds's query parameters as sent (an empty one counts as left out).
// It refuses anything out of the contract with errs.InvalidRequest.
func ParseFilter(status, bookID, limit, cursor string) (Filter, error) {
	f := Filter{Status: status, BookID: bookID}
	if err := checkStatus(status); err != nil {
		return f, err
	}
	if bookID != "" {
		if err := validate.ID("bookId", bookID); err != nil {
			return f, err
		}
	}
	var err error
	if f.Limit, err = parseLimit(limit); err != nil {
		return f, err
	}
	if cursor != "" {
		k, shelf, err := decodeCursor(cursor)
		if err != nil {
			return f, err
		}
		if shelf != f.Shelf() {
			return f, errs.E(errs.InvalidRequest, "cursor must be the next of an earlier page with the same status")
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

// A cursor is the unpadded base64url encoding of cursorVersion, the order (queueOrder or
// shelfOrder), the hold's seq (8 bytes, big-endian), in the shelf's order its until in
// microseconds since 1970 (8 bytes, big-endian, two's complement), and the book id. Clients are
// told it is opaque, so that its form may change: a new form takes a new version byte.
const (
	cursorVersion = 1
	queueOrder    = 'q'
	shelfOrder    = 's'
)

// maxCursorLength is the length of the longest cursor: the shelf's, with the longest queue key.
var maxCursorLength = base64.RawURLEncoding.EncodedLen(2 + 8 + 8 + len(titlePrefix) + validate.MaxIDLength)

func encodeCursor(k Key, shelf bool) string {
	b := make([]byte, 0, 18+len(k.BookID))
	if shelf {
		b = append(b, cursorVersion, shelfOrder)
		b = binary.BigEndian.AppendUint64(b, uint64(k.Seq))
		b = binary.BigEndian.AppendUint64(b, uint64(k.Until.UnixMicro()))
	} else {
		b = append(b, cursorVersion, queueOrder)
		b = binary.BigEndian.AppendUint64(b, uint64(k.Seq))
	}
	return base64.RawURLEncoding.EncodeToString(append(b, k.BookID...))
}

// decodeCursor returns the key in a cursor and whether it is in the shelf's order, refusing
// whatever encodeCursor could not have made. Strict decoding allows one encoding per cursor.
func decodeCursor(c string) (Key, bool, error) {
	bad := errs.E(errs.InvalidRequest, "cursor must be the next of an earlier page, as the service returned it")
	if len(c) > maxCursorLength {
		return Key{}, false, bad
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(c)
	if err != nil || len(b) < 10 || b[0] != cursorVersion || (b[1] != queueOrder && b[1] != shelfOrder) {
		return Key{}, false, bad
	}
	shelf := b[1] == shelfOrder
	k := Key{Seq: int64(binary.BigEndian.Uint64(b[2:10]))}
	rest := b[10:]
	if shelf {
		if len(rest) < 8 {
			return Key{}, false, bad
		}
		k.Until = time.UnixMicro(int64(binary.BigEndian.Uint64(rest[:8]))).UTC()
		rest = rest[8:]
		if k.Until.Year() < 1 || k.Until.Year() > 9999 {
			return Key{}, false, bad
		}
	}
	k.BookID = string(rest)
	queue := k.BookID
	if titleID, ok := titleOf(queue); ok {
		queue = titleID
	}
	if k.Seq < 1 || !validate.IsID(queue) {
		return Key{}, false, bad
	}
	return k, shelf, nil
}
