package pii

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Erased is what a reader without the member's data key reads in place of a personal value.
const Erased = "[erased]"

// sealedPrefix marks a sealed value in the log: version 1 of the format, then the nonce and
// the ciphertext in base64.
const sealedPrefix = "pii:1:"

// WrappedKey is a data key as member_keys keeps it: sealed by the KEK named KEKID.
type WrappedKey struct {
	KEKID   string
	Wrapped []byte
}

// ErrNoKey is a member without a data key: none was ever needed, or they were erased.
var ErrNoKey = errors.New("pii: no data key")

// ErrErased is a member who was erased: they have no data key, and never get one again.
var ErrErased = errors.New("pii: the member was erased")

// Store keeps the wrapped data keys, one per member.
//
// Erasing a member (the append that records it, or deleting their key on its own after a
// restore) leaves a mark in place of their key, so that the store refuses them a new one for
// good: a writer that still holds a state from before the erasure (a snapshot written late, a
// command decided on a kept aggregate) must not make them a key, which would seal their values
// anew, readable again, and which could not open what their erased key sealed.
type Store interface {
	// DataKey returns a member's wrapped data key, or ErrNoKey (also for an erased member).
	DataKey(ctx context.Context, owner string) (WrappedKey, error)
	// AddDataKey keeps k as the member's data key unless they have one, and returns the one
	// kept: two replicas that make a key at once end with the same one. A member who was
	// erased gets none: ErrErased.
	AddDataKey(ctx context.Context, owner string, k WrappedKey) (WrappedKey, error)
	// RewrapDataKeys passes every wrapped key to rewrap and keeps what it returns when it says
	// so; it returns how many were kept anew.
	RewrapDataKeys(ctx context.Context, rewrap func(WrappedKey) (WrappedKey, bool, error)) (int, error)
}

// Keyring seals and opens members' personal values with their data keys.
type Keyring struct {
	keks  KEKs
	store Store
	cache keyCache
}

// NewKeyring returns a Keyring whose data keys are wrapped by keks (the first wraps new ones)
// and kept in store.
func NewKeyring(keks KEKs, store Store) *Keyring { return &Keyring{keks: keks, store: store} }

// Sealer returns the sealing of one member's personal values. Without a data key, it makes one
// when create is true, and otherwise returns nil; it returns nil too for a member who was
// erased, who never gets a key again, whoever asks late. ad is what a sealed value is bound
// to: its stream and its event's version.
func (k *Keyring) Sealer(ctx context.Context, owner string, create bool) (func(ad, plaintext string) (string, error), error) {
	dek, err := k.dataKey(ctx, owner)
	switch {
	case errors.Is(err, ErrNoKey) && !create:
		return nil, nil
	case errors.Is(err, ErrNoKey):
		if dek, err = k.newDataKey(ctx, owner); errors.Is(err, ErrErased) {
			return nil, nil
		}
	}
	if err != nil {
		return nil, err
	}
	return func(ad, plaintext string) (string, error) {
		if plaintext == "" {
			return "", nil
		}
		nonce := make([]byte, dek.NonceSize(), dek.NonceSize()+len(plaintext)+dek.Overhead())
		if _, err := rand.Read(nonce); err != nil {
			return "", err
		}
		return sealedPrefix + base64.RawStdEncoding.EncodeToString(dek.Seal(nonce, nonce, []byte(plaintext), []byte(ad))), nil
	}, nil
}

// Opener returns the opening of one member's sealed values. Without their data key (they were
// erased) every sealed value opens as Erased. A value that was never sealed is given back as
// it is. A sealed value that does not open with the key (moved to another event, or changed)
// is an error.
func (k *Keyring) Opener(ctx context.Context, owner string) (func(ad, value string) (string, error), error) {
	dek, err := k.dataKey(ctx, owner)
	if err != nil && !errors.Is(err, ErrNoKey) {
		return nil, err
	}
	return func(ad, value string) (string, error) {
		encoded, sealed := strings.CutPrefix(value, sealedPrefix)
		switch {
		case !sealed:
			return value, nil
		case dek == nil:
			return Erased, nil
		}
		b, err := base64.RawStdEncoding.DecodeString(encoded)
		if err != nil || len(b) < dek.NonceSize() {
			return "", errors.New("pii: a sealed value is malformed")
		}
		plain, err := dek.Open(nil, b[:dek.NonceSize()], b[dek.NonceSize():], []byte(ad))
		if err != nil {
			return "", errors.New("pii: a sealed value does not open with its member's key here")
		}
		return string(plain), nil
	}, nil
}

// IsSealed reports whether a value is sealed.
func IsSealed(value string) bool { return strings.HasPrefix(value, sealedPrefix) }

// Rotate rewraps every data key with the current KEK, so that older KEKs can be retired. It
// returns how many keys it rewrapped.
func (k *Keyring) Rotate(ctx context.Context) (int, error) {
	current := k.keks.current()
	return k.store.RewrapDataKeys(ctx, func(w WrappedKey) (WrappedKey, bool, error) {
		if w.KEKID == current.ID {
			return w, false, nil
		}
		raw, err := k.unwrap(w)
		if err != nil {
			return WrappedKey{}, false, err
		}
		rewrapped, err := wrap(current, raw)
		return rewrapped, err == nil, err
	})
}

func (k *Keyring) dataKey(ctx context.Context, owner string) (cipher.AEAD, error) {
	now := time.Now()
	if kept := k.cache.get(owner, now); kept != nil {
		return kept, nil
	}
	w, err := k.store.DataKey(ctx, owner)
	if err != nil {
		return nil, err
	}
	raw, err := k.unwrap(w)
	if err != nil {
		return nil, err
	}
	dek, err := aead(raw)
	if err == nil {
		k.cache.put(owner, dek, now)
	}
	return dek, err
}

func (k *Keyring) newDataKey(ctx context.Context, owner string) (cipher.AEAD, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, err
	}
	w, err := wrap(k.keks.current(), raw)
	if err != nil {
		return nil, err
	}
	if w, err = k.store.AddDataKey(ctx, owner, w); err != nil {
		return nil, err
	}
	if raw, err = k.unwrap(w); err != nil {
		return nil, err
	}
	dek, err := aead(raw)
	if err == nil {
		k.cache.put(owner, dek, time.Now())
	}
	return dek, err
}

// wrapAD binds a wrapped data key to the KEK that wrapped it.
func wrapAD(kekID string) []byte { return []byte("member data key/" + kekID) }

func wrap(kek KEK, raw []byte) (WrappedKey, error) {
	c, err := aead(kek.key[:])
	if err != nil {
		return WrappedKey{}, err
	}
	nonce := make([]byte, c.NonceSize(), c.NonceSize()+len(raw)+c.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return WrappedKey{}, err
	}
	return WrappedKey{KEKID: kek.ID, Wrapped: c.Seal(nonce, nonce, raw, wrapAD(kek.ID))}, nil
}

func (k *Keyring) unwrap(w WrappedKey) ([]byte, error) {
	kek, ok := k.keks.byID(w.KEKID)
	if !ok {
		return nil, fmt.Errorf("pii: a data key is wrapped by the KEK %q, which PII_KEY does not hold", w.KEKID)
	}
	c, err := aead(kek.key[:])
	if err != nil {
		return nil, err
	}
	if len(w.Wrapped) < c.NonceSize() {
		return nil, errors.New("pii: a wrapped data key is malformed")
	}
	raw, err := c.Open(nil, w.Wrapped[:c.NonceSize()], w.Wrapped[c.NonceSize():], wrapAD(w.KEKID))
	if err != nil {
		return nil, fmt.Errorf("pii: a data key does not unwrap with the KEK %q", w.KEKID)
	}
	return raw, nil
}

func aead(key []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
