package notifications

import (
	"crypto/sha256"
	"encoding/base32"
	"net/mail"
	"strconv"
	"strings"
	"time"

	"library/internal/eventstore"
)

// MessageIDs makes the Message-ID of each loan email, from the event and the installation
// only (a reminder's: see ForTimer), so that every replica, and every attempt, gives one email one id, and a receiver that
// drops repeats by Message-ID drops only true repeats:
//
//	<notifications.{position}.{recorded}.{installation}@{domain}>
//
// The position names the event within its log; the time it was recorded (in microseconds,
// base 36) sets it apart from an event at the same position in a log restored from a backup
// and written on since; the installation id sets it apart from every other database; and the
// domain is MAIL_FROM's, as RFC 5322 asks of an id's right-hand side.
type MessageIDs struct {
	Installation string
	Domain       string
}

// NewMessageIDs returns the ids of an installation whose emails come from from. A from
// address without a domain that can go in a header as it is (an internationalized one) gives
// the domain "localhost".
func NewMessageIDs(installation, from string) MessageIDs {
	domain := "localhost"
	if addr, err := mail.ParseAddress(from); err == nil {
		if i := strings.LastIndexByte(addr.Address, '@'); i >= 0 && headerSafe(addr.Address[i+1:]) {
			domain = addr.Address[i+1:]
		}
	}
	return MessageIDs{Installation: installation, Domain: domain}
}

// For returns the Message-ID of the email for e, angle brackets included.
func (m MessageIDs) For(e eventstore.Event) string {
	return "<" + OutboxName + "." + strconv.FormatInt(e.Position, 10) + "." +
		strconv.FormatInt(e.RecordedAt.UnixMicro(), 36) + "." + m.Installation + "@" + m.Domain + ">"
}

// ForTimer returns the Message-ID of the email a timer sends (a reminder), angle brackets
// included, from the timer's key and the time it was due only, so that a fire repeated (after a
// crash, or by the next holder) gives the same id, and every other reminder another:
//
//	<notifications.t{digest}.{installation}@{domain}>
//
// The digest (SHA-256 of the key and the due time in microseconds, 120 bits in base 32) keeps
// the key's ids, which may hold any of an id's characters, out of the header; "t" sets it apart
// from a loan email's position.
func (m MessageIDs) ForTimer(key string, due time.Time) string {
	sum := sha256.Sum256([]byte(key + "\x00" + strconv.FormatInt(due.UnixMicro(), 10)))
	digest := strings.ToLower(base32.StdEncoding.EncodeToString(sum[:15]))
	return "<" + OutboxName + ".t" + digest + "." + m.Installation + "@" + m.Domain + ">"
}

// headerSafe accepts what may go inside a Message-ID's <...> as it is, with no encoding:
// printable ASCII without spaces or brackets (the rule the SMTP client checks ids by).
func headerSafe(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r > '~' || r == '<' || r == '>' {
			return false
		}
	}
	return true
}

// PositionOf returns the position of the event a loan email's Message-ID was made for.
func PositionOf(messageID string) (int64, bool) {
	rest, ok := strings.CutPrefix(messageID, "<"+OutboxName+".")
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, ".")
	if !ok {
		return 0, false
	}
	p, err := strconv.ParseInt(digits, 10, 64)
	return p, err == nil && p > 0
}
