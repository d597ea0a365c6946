package pii

import (
	"crypto/cipher"
	"sync"
	"time"
)

// A replica keeps the data keys it unwrapped for a short while, so that a command that seals
// and a read that opens cost no query of member_keys each. A kept key is dropped when the
// member is erased through this replica (Forget), and after keyTTL in any case: another
// replica's erasure deletes the key from member_keys, and a key kept here is then unused (the
// member's account refuses commands and reads once it holds MemberErased) and gone within
// keyTTL.
const (
	keyTTL  = time.Minute
	maxKeys = 10_000
)

type keptKey struct {
	aead cipher.AEAD
	at   time.Time
}

// keyCache holds the data keys unwrapped in the last keyTTL, by owner.
type keyCache struct {
	mu   sync.Mutex
	keys map[string]keptKey
}

func (c *keyCache) get(owner string, now time.Time) cipher.AEAD {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.keys[owner]
	if !ok || now.Sub(k.at) >= keyTTL {
		return nil
	}
	return k.aead
}

func (c *keyCache) put(owner string, aead cipher.AEAD, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.keys == nil {
		c.keys = map[string]keptKey{}
	}
	if len(c.keys) >= maxKeys {
		for o, k := range c.keys {
			if now.Sub(k.at) >= keyTTL {
				delete(c.keys, o)
			}
		}
		if len(c.keys) >= maxKeys {
			clear(c.keys)
		}
	}
	c.keys[owner] = keptKey{aead: aead, at: now}
}

func (c *keyCache) forget(owner string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.keys, owner)
}

// Forget drops the member's data key from this replica's memory: they were just erased.
func (k *Keyring) Forget(owner string) { k.cache.forget(owner) }
