package kiosk

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"strings"
)

// transactionID is the command id of a kiosk's transaction: a hash of the terminal and of what
// the message says identifies it (its code, its transaction date, its patron, its item or fee),
// so that the message sent again, on any replica and after any reconnect, has the same id and is
// answered from the log. Each part is hashed after its length, so two transactions never make
// one id however their parts' bytes fall. The id is a valid identifier (package validate):
// "sip-" and 26 base32 characters, 130 bits of the hash.
func transactionID(terminal string, parts ...string) string {
	h := sha256.New()
	for _, p := range append([]string{terminal}, parts...) {
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(p))))
		h.Write([]byte(p))
	}
	sum := h.Sum(nil)
	return "sip-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum)[:26])
}
