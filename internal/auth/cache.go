package auth

import "sync"

// tokenCache remembers verified tokens, by their SHA-256, until they expire, so that a caller's
// next request skips the signature check. It holds at most size tokens: when full, it first
// forgets the expired ones, then any, so that a flood of tokens can't grow it.
type tokenCache struct {
	mu     sync.Mutex
	size   int
	tokens map[[32]byte]Caller
}

func newTokenCache(size int) *tokenCache {
	return &tokenCache{size: size, tokens: make(map[[32]byte]Caller)}
}

// get returns the caller of a token that is still valid at the Unix time validAt (the
// expiry check's now, less the allowed skew).
func (c *tokenCache) get(key [32]byte, validAt int64) (Caller, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	caller, ok := c.tokens[key]
	if !ok {
		return Caller{}, false
	}
	if caller.ExpiresAt < validAt {
		delete(c.tokens, key)
		return Caller{}, false
	}
	return caller, true
}

// put remembers a token's caller. validAt is get's: tokens that expired by then go first
// when the cache is full.
func (c *tokenCache) put(key [32]byte, caller Caller, validAt int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.tokens) >= c.size {
		c.evict(validAt)
	}
	c.tokens[key] = caller
}

// evict makes room: it drops the expired tokens, and if that left the cache over nine tenths
// full, arbitrary ones (map order is random) until it is not.
func (c *tokenCache) evict(validAt int64) {
	for k, v := range c.tokens {
		if v.ExpiresAt < validAt {
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
