// Package keyring keeps the demo provider's RSA signing keys: the newest signs, and every one
// made and not retired is served in the key set, so that tokens signed before a rotation
// still verify.
package keyring

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"fmt"
	"sync"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// rsaKeyBits is the size of the signing keys: enough for RS256, quick to make in tests.
const rsaKeyBits = 2048

// Key is one RSA key pair. It serves both as op.SigningKey (the private half) and,
// through publicKey, as an op.Key in the key set.
type Key struct {
	id      string
	private *rsa.PrivateKey
}

func newKey() (Key, error) {
	private, err := rsa.GenerateKey(rand.Reader, rsaKeyBits)
	if err != nil {
		return Key{}, fmt.Errorf("devidp: make RSA key: %w", err)
	}
	id := make([]byte, 8)
	if _, err := rand.Read(id); err != nil {
		return Key{}, fmt.Errorf("devidp: make key id: %w", err)
	}
	return Key{id: hex.EncodeToString(id), private: private}, nil
}

// SignatureAlgorithm is RS256, the one the provider signs with.
func (k Key) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }

// Key is the private half, which signs.
func (k Key) Key() any { return k.private }

// ID is the key's kid.
func (k Key) ID() string { return k.id }

// publicKey is the public half of a Key, as the key set serves it.
type publicKey struct{ signing Key }

func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return &k.signing.private.PublicKey }
func (k publicKey) ID() string                         { return k.signing.id }

// Keyring holds every key made so far; the newest signs, and all are served in the JWKS so
// that tokens signed before a rotation still verify.
type Keyring struct {
	mu   sync.Mutex
	keys []Key
}

// New returns a keyring with one key, which signs.
func New() (*Keyring, error) {
	k, err := newKey()
	if err != nil {
		return nil, err
	}
	return &Keyring{keys: []Key{k}}, nil
}

// Current is the key that signs now.
func (r *Keyring) Current() Key {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.keys[len(r.keys)-1]
}

// Rotate makes a new key the one that signs.
func (r *Keyring) Rotate() error {
	k, err := newKey()
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, k)
	return nil
}

// Retire forgets the key with this id; the current key can't be retired.
func (r *Keyring) Retire(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, k := range r.keys {
		if k.id != id {
			continue
		}
		if i == len(r.keys)-1 {
			return fmt.Errorf("devidp: key %s signs now: rotate before retiring it", id)
		}
		r.keys = append(r.keys[:i:i], r.keys[i+1:]...)
		return nil
	}
	return fmt.Errorf("devidp: no key %s", id)
}

// Public returns the public keys, newest first.
func (r *Keyring) Public() []op.Key {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]op.Key, 0, len(r.keys))
	for i := len(r.keys) - 1; i >= 0; i-- {
		keys = append(keys, publicKey{r.keys[i]})
	}
	return keys
}

// Private is the key's private half.
func (k Key) Private() *rsa.PrivateKey { return k.private }
