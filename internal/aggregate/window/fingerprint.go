package window

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"strings"
	"sync"
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
	return NewFingerprinter(key).Payload(payload)
}

// Fingerprinter fingerprints payloads with one key, as FingerprintPayload does. It keeps what
// it hashes with for the next payload: a keyed HMAC takes five allocations to make, and a
// payload's encoding a buffer. It is safe for concurrent use.
type Fingerprinter struct {
	key   []byte
	tools sync.Pool // of *hashing
}

// hashing is what one fingerprint is made with.
type hashing struct {
	mac     hash.Hash // nil without a key
	encoded bytes.Buffer
	sum     [sha256.Size]byte
}

// NewFingerprinter returns a Fingerprinter with key; nil or empty: no key, the plain hash.
func NewFingerprinter(key []byte) *Fingerprinter {
	f := &Fingerprinter{key: bytes.Clone(key)}
	f.tools.New = func() any {
		h := &hashing{}
		if len(f.key) > 0 {
			h.mac = hmac.New(sha256.New, f.key)
		}
		return h
	}
	return f
}

// Payload is FingerprintPayload(payload, the Fingerprinter's key).
func (f *Fingerprinter) Payload(payload any) (fp, legacy Fingerprint, err error) {
	h := f.tools.Get().(*hashing)
	defer f.tools.Put(h)
	h.encoded.Reset()
	// An Encoder writes json.Marshal's bytes, and a newline after them, into a buffer of ours.
	if err := json.NewEncoder(&h.encoded).Encode(payload); err != nil {
		return Fingerprint{}, Fingerprint{}, fmt.Errorf("aggregate: fingerprint payload: %w", err)
	}
	b := h.encoded.Bytes()
	b = b[:len(b)-1]
	h.sum = sha256.Sum256(b)
	copy(legacy[:], h.sum[:])
	if h.mac == nil {
		return legacy, legacy, nil
	}
	h.mac.Reset()
	h.mac.Write(b)
	copy(fp[:], h.mac.Sum(h.sum[:0]))
	return fp, legacy, nil
}
