package auth_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/auth"
)

// clock is a clock a test moves by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Now()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// forged returns tokens that no key of p verifies: half name p's own key but carry a changed
// payload, half are signed by another provider's key, which p does not publish.
func forged(t *testing.T, p *provider, n int) []string {
	t.Helper()
	other := startProvider(t, "127.0.0.1:0")
	parts := strings.Split(p.token(t, "alice"), ".")
	tokens := make([]string, 0, n)
	for i := range n {
		if i%2 == 0 {
			tokens = append(tokens, parts[0]+"."+reencode(t, parts[1], "sub", "mallory")+"."+parts[2])
			continue
		}
		token, err := other.Sign(map[string]any{"iss": p.issuer, "aud": "library", "sub": "mallory",
			"exp": time.Now().Add(time.Hour).Unix(), "roles": []string{"operator"}})
		require.NoError(t, err)
		tokens = append(tokens, token)
	}
	return tokens
}

// A flood of forged tokens, whatever key they name, makes the service fetch the provider's keys
// at most once every 30 s: none within 30 s of the last fetch, one at most after, however many
// arrive at once.
func TestForgedTokensFetchTheKeysAtMostEvery30s(t *testing.T) {
	t.Parallel()
	p := startProvider(t, "127.0.0.1:0")
	c := newClock()
	v := newVerifier(t, p, auth.VerifierConfig{Now: c.Now})
	_, err := v.Verify(context.Background(), p.token(t, "alice"))
	require.NoError(t, err)
	before := p.keyFetches.Load()
	require.Positive(t, before, "the keys were fetched to verify a token")

	for _, token := range forged(t, p, 20) {
		_, err := v.Verify(context.Background(), token)
		require.ErrorIs(t, err, auth.ErrInvalidToken)
	}
	assert.Equal(t, before, p.keyFetches.Load(), "20 forged tokens within 30 s of the last fetch fetch nothing")

	c.Advance(auth.KeyRefetchInterval + time.Second)
	var wg sync.WaitGroup
	for _, token := range forged(t, p, 20) {
		wg.Go(func() {
			_, err := v.Verify(context.Background(), token)
			assert.ErrorIs(t, err, auth.ErrInvalidToken)
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, p.keyFetches.Load(), before+1, "20 forged tokens at once, 30 s after the last fetch, fetch once at most")
}

// A token verified once is remembered, but not beyond a few minutes: once its key has been
// withdrawn from the provider's key set, it is refused, though it has not expired.
func TestATokenOfAWithdrawnKeyIsRefused(t *testing.T) {
	t.Parallel()
	p := startProvider(t, "127.0.0.1:0")
	c := newClock()
	v := newVerifier(t, p, auth.VerifierConfig{Now: c.Now})
	token := p.token(t, "alice")
	_, err := v.Verify(context.Background(), token)
	require.NoError(t, err)

	old := p.KeyID()
	require.NoError(t, p.RotateKey())
	require.NoError(t, p.RetireKey(old))
	c.Advance(auth.TokenCacheLifetime + time.Second)
	_, err = v.Verify(context.Background(), token)
	require.ErrorIs(t, err, auth.ErrInvalidToken, "a token signed by a withdrawn key")

	c.Advance(auth.KeyRefetchInterval + time.Second)
	_, err = v.Verify(context.Background(), p.token(t, "alice"))
	require.NoError(t, err, "the new key verifies")
}

// A token verified once is refused from the cache too once it has expired (beyond the allowed
// skew): the cache keeps it no longer than the token says.
func TestARememberedTokenExpires(t *testing.T) {
	t.Parallel()
	p := startProvider(t, "127.0.0.1:0")
	c := newClock()
	v := newVerifier(t, p, auth.VerifierConfig{Now: c.Now})
	token := p.sign(t, map[string]any{"exp": c.Now().Add(2 * time.Minute).Unix()})
	_, err := v.Verify(context.Background(), token)
	require.NoError(t, err)

	c.Advance(2*time.Minute + auth.MaxClockSkew + 2*time.Second)
	_, err = v.Verify(context.Background(), token)
	require.ErrorIs(t, err, auth.ErrInvalidToken)
	assert.Contains(t, err.Error(), "expired")
}

// A remembered token is believed only while the key that verified it is in the key set held:
// once a fetch (here, for a token of the provider's new key) brings a set without it, the
// token is refused at once, though neither it nor its place in the cache has expired.
func TestARememberedTokenGoesWithItsKey(t *testing.T) {
	t.Parallel()
	p := startProvider(t, "127.0.0.1:0")
	c := newClock()
	v := newVerifier(t, p, auth.VerifierConfig{Now: c.Now})
	token := p.token(t, "alice")
	_, err := v.Verify(context.Background(), token)
	require.NoError(t, err)
	c.Advance(time.Second)
	_, err = v.Verify(context.Background(), token)
	require.NoError(t, err, "remembered")

	old := p.KeyID()
	require.NoError(t, p.RotateKey())
	require.NoError(t, p.RetireKey(old))
	c.Advance(auth.KeyRefetchInterval)
	fetches := p.keyFetches.Load()
	_, err = v.Verify(context.Background(), p.sign(t, map[string]any{"sub": "bob"}))
	require.NoError(t, err, "the new key is fetched")
	require.Equal(t, fetches+1, p.keyFetches.Load(), "one fetch, which leaves the old key out")

	require.Less(t, auth.KeyRefetchInterval+time.Second, auth.TokenCacheLifetime, "still within the cache's lifetime")
	_, err = v.Verify(context.Background(), token)
	require.ErrorIs(t, err, auth.ErrInvalidToken, "its key left the key set")
}
