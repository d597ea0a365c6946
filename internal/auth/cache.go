package auth

import (
	"sync"
	"time"
)

// TokenCacheLifetime is the longest a verified token is remembered: after it, the token is
// verified again, against the key set as it is then.
const TokenCacheLifetime = 5 * time.Minute

// tokenCache remembers verified tokens, by their SHA-256, so that a caller's next request skips
// the signature check: until the token expires, for at most TokenCacheLifetime, and while the
// key that verified it is still in the provider's key set. It holds at most size tokens: when
// full, it first forgets the expired ones, then any, so that a flood of tokens can't grow it.
type tokenCache struct {
	mu     sync.Mutex
	size   int
	tokens map[[32]byte]cached
}

// cached is a verified token: its caller, the key that verified it (heldKey.id), and the Unix
// time after which it must be verified again.
type cached struct {
	caller Caller
	keyID  string
	until  int64
}

func newTokenCache(size int) *tokenCache {
	return &tokenCache{size: size, tokens: make(map[[32]byte]cached)}
}

// get returns the caller of a token that is still valid at now, less the allowed skew (the
// token's exp), and at now (the cache's own limit), and whose key held still has.
func (c *tokenCache) get(key [32]byte, now time.Time, held func(keyID string) bool) (Caller, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.tokens[key]
	if !ok {
		return Caller{}, false
	}
	if e.stale(now) || !held(e.keyID) {
		delete(c.tokens, key)
		return Caller{}, false
	}
	return e.caller, true
}

// put remembers a token's caller, verified at now with the key keyID.
func (c *tokenCache) put(key [32]byte, caller Caller, keyID string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.tokens) >= c.size {
		c.evict(now)
	}
	c.tokens[key] = cached{caller: caller, keyID: keyID, until: now.Add(TokenCacheLifetime).Unix()}
}

// stale reports whether the token expired (beyond the skew) or was remembered long enough.
func (e cached) stale(now time.Time) bool {
	return e.caller.ExpiresAt < now.Add(-MaxClockSkew).Unix() || e.until < now.Unix()
}

// evict makes room: it drops the stale tokens, and if that left the cache over nine tenths
// full, arbitrary ones (map order is random) until it is not.
func (c *tokenCache) evict(now time.Time) {
	for k, e := range c.tokens {
		if e.stale(now) {
			delete(c.tokens, k)
		}
	}
	for k := range c.tokens {
		if len(c.tokens) < c.size-c.size/10 {
			return
		}
		delete(c.tokens, k)
	}
}
