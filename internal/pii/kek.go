package pii

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"
)

// KEK is a key-encryption key: it wraps members' data keys.
type KEK struct {
	ID  string
	key [32]byte
}

// KEKs are the key-encryption keys, the current first.
type KEKs []KEK

// ParseKEKs reads PII_KEY: either a base64 32-byte key (its id is "1"), or a comma-separated
// list of id:key pairs, the current first ("2:base64...,1:base64..."), or the path of a file
// (a Kubernetes Secret mounted as a file) holding either. Errors never repeat a key.
func ParseKEKs(value string) (KEKs, error) {
	value = strings.TrimSpace(value)
	if strings.HasPrefix(value, "/") && !isKey(value) { // a key in base64 may begin with a slash too
		b, err := os.ReadFile(value)
		if err != nil {
			return nil, fmt.Errorf("PII_KEY names a file that can't be read: %w", errors.Unwrap(err))
		}
		value = strings.TrimSpace(string(b))
	}
	if value == "" {
		return nil, errors.New("PII_KEY is empty")
	}
	var keks KEKs
	for i, part := range strings.Split(value, ",") {
		id, encoded, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok {
			id, encoded = "1", part
			if i > 0 || strings.Contains(value, ",") {
				return nil, errors.New("PII_KEY: with several keys, give each as id:base64")
			}
		}
		k, err := base64.StdEncoding.DecodeString(strings.TrimSpace(encoded))
		if err != nil || len(k) != 32 {
			return nil, fmt.Errorf("PII_KEY: key %q must be 32 bytes in base64 (head -c 32 /dev/urandom | base64)", id)
		}
		if id == "" || strings.ContainsAny(id, " :") {
			return nil, errors.New("PII_KEY: a key id must be a word without spaces or colons")
		}
		for _, other := range keks {
			if other.ID == id {
				return nil, fmt.Errorf("PII_KEY: key id %q is given twice", id)
			}
		}
		kek := KEK{ID: id}
		copy(kek.key[:], k)
		keks = append(keks, kek)
	}
	return keks, nil
}

// NewKEK makes a KEK from 32 bytes, for tests and for a service in memory.
func NewKEK(id string, key [32]byte) KEK { return KEK{ID: id, key: key} }

// current is the KEK that wraps new data keys.
func (k KEKs) current() KEK { return k[0] }

// byID finds a KEK.
func (k KEKs) byID(id string) (KEK, bool) {
	for _, kek := range k {
		if kek.ID == id {
			return kek, true
		}
	}
	return KEK{}, false
}

// isKey reports whether value is one key, 32 bytes in base64, rather than a file's path.
func isKey(value string) bool {
	k, err := base64.StdEncoding.DecodeString(value)
	return err == nil && len(k) == 32
}
