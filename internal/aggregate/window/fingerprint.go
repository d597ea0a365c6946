package window

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// Fingerprint is a short hash of a command's payload.
type Fingerprint [16]byte

// fingerprintPrefix begins every fingerprint as the metadata writes it.
const fingerprintPrefix = "sha256:"

// String is the fingerprint as the metadata writes it.
func (f Fingerprint) String() string { return fingerprintPrefix + hex.EncodeToString(f[:]) }

// FingerprintOf reads a fingerprint from the metadata. One this package did not write is
// hashed, so that it still compares equal to itself and to nothing else.
func FingerprintOf(s string) Fingerprint {
	var f Fingerprint
	if hexed, ok := strings.CutPrefix(s, fingerprintPrefix); ok && len(hexed) == 2*len(f) {
		if _, err := hex.Decode(f[:], []byte(hexed)); err == nil {
			return f
		}
	}
	sum := sha256.Sum256([]byte(s))
	copy(f[:], sum[:])
	return f
}

// FingerprintPayload hashes a payload's JSON encoding: with key, a keyed hash (HMAC-SHA-256),
// and the plain hash that commands carried before, for comparing with them. Go encodes struct
// fields in a fixed order, so one payload always has one fingerprint.
func FingerprintPayload(payload any, key []byte) (fp, legacy Fingerprint, err error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return Fingerprint{}, Fingerprint{}, fmt.Errorf("aggregate: fingerprint payload: %w", err)
	}
	sum := sha256.Sum256(b)
	copy(legacy[:], sum[:])
	if len(key) == 0 {
		return legacy, legacy, nil
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(b)
	copy(fp[:], mac.Sum(nil))
	return fp, legacy, nil
}
