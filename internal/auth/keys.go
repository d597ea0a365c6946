package auth

import (
	"context"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// KeyRefetchInterval is the least time between two fetches of the provider's key set, whatever
// the tokens that ask for one: a flood of forged tokens costs the provider one fetch in 30 s.
const KeyRefetchInterval = 30 * time.Second

// KeySetMaxAge is how long a fetched key set is used before it is fetched again, so that a key
// the provider withdrew stops verifying within minutes.
const KeySetMaxAge = 5 * time.Minute

// maxKeySetBytes bounds the key set's document.
const maxKeySetBytes = 1 << 20

// errNoKey is a signature that no key of the provider's verifies.
var errNoKey = errors.New("no key of the provider's key set verifies it")

// keySet is the provider's published keys (its JWKS), as go-oidc's KeySet. It is fetched at
// start, again once it is KeySetMaxAge old, and again for a token that names a key id it does
// not hold (or names none, and no key verifies it); never twice within KeyRefetchInterval. A
// token that names a key it holds but whose signature that key refuses is forged, and fetches
// nothing. A fetch that fails keeps the keys there were.
type keySet struct {
	url    string
	client *http.Client
	now    func() time.Time
	log    *slog.Logger

	fetching sync.Mutex // one fetch at a time

	mu        sync.RWMutex
	keys      []heldKey
	fetchedAt time.Time // of the keys held
	triedAt   time.Time // the last fetch, whether it worked or not
	failing   bool      // the last fetch failed (logged once per outage)
}

// heldKey is one verification key and its identity: the SHA-256 thumbprint of the public key
// (RFC 7638), which names it even when the provider gives it no kid.
type heldKey struct {
	jwk jose.JSONWebKey
	id  string
}

// signedBy is where VerifySignature tells Verify which key verified a token, and the token's
// header type (typ): go-oidc's KeySet interface returns only the payload.
type signedBy struct {
	keyID      string
	headerType string
}

type signedByKey struct{}

func withSignedBy(ctx context.Context, s *signedBy) context.Context {
	return context.WithValue(ctx, signedByKey{}, s)
}

// fetchKeySet fetches the key set at url for the first time.
func fetchKeySet(ctx context.Context, url string, client *http.Client, now func() time.Time, log *slog.Logger) (*keySet, error) {
	k := &keySet{url: url, client: client, now: now, log: log}
	keys, err := k.download(ctx)
	if err != nil {
		return nil, err
	}
	k.keys, k.fetchedAt = keys, now()
	k.triedAt = k.fetchedAt
	return k, nil
}

// VerifySignature returns the payload of a token that a key of the set verifies.
func (k *keySet) VerifySignature(ctx context.Context, raw string) ([]byte, error) {
	jws, err := jose.ParseSignedCompact(raw, asymmetricJOSE)
	if err != nil || len(jws.Signatures) != 1 {
		return nil, errors.New("malformed jwt")
	}
	header := jws.Signatures[0].Protected
	if k.age() >= KeySetMaxAge {
		k.refetch(ctx, false)
	}
	payload, id, ok := k.verify(jws, header.KeyID)
	if !ok && (header.KeyID == "" || !k.holds(header.KeyID)) {
		k.refetch(ctx, true)
		payload, id, ok = k.verify(jws, header.KeyID) // with what this fetch, or the one waited for, brought
	}
	if !ok {
		return nil, errNoKey
	}
	if s, ok := ctx.Value(signedByKey{}).(*signedBy); ok {
		s.keyID = id
		s.headerType, _ = header.ExtraHeaders[jose.HeaderType].(string)
	}
	return payload, nil
}

// verify tries the keys that kid names (every key when kid is empty), and returns the payload
// and the id of the key that verified it.
func (k *keySet) verify(jws *jose.JSONWebSignature, kid string) ([]byte, string, bool) {
	k.mu.RLock()
	keys := k.keys
	k.mu.RUnlock()
	for _, key := range keys {
		if kid != "" && key.jwk.KeyID != kid {
			continue
		}
		if payload, err := jws.Verify(&key.jwk); err == nil {
			return payload, key.id, true
		}
	}
	return nil, "", false
}

// holds reports whether the set has a key with this kid.
func (k *keySet) holds(kid string) bool {
	k.mu.RLock()
	defer k.mu.RUnlock()
	for _, key := range k.keys {
		if key.jwk.KeyID == kid {
			return true
		}
	}
	return false
}

// has reports whether the key with this identity (heldKey.id) is still in the set.
func (k *keySet) has(id string) bool {
	k.mu.RLock()
	defer k.mu.RUnlock()
	for _, key := range k.keys {
		if key.id == id {
			return true
		}
	}
	return false
}

// age is how long ago the keys held were fetched.
func (k *keySet) age() time.Duration {
	k.mu.RLock()
	defer k.mu.RUnlock()
	return k.now().Sub(k.fetchedAt)
}

// refetch fetches the key set unless it was tried less than KeyRefetchInterval ago (by this
// caller or another, while this one waited). When another fetch is under way, it waits for it
// only if wait is set: a token that needs a key the set lacks waits; one that the keys held
// can verify goes on with them.
func (k *keySet) refetch(ctx context.Context, wait bool) {
	if wait {
		k.fetching.Lock()
	} else if !k.fetching.TryLock() {
		return
	}
	defer k.fetching.Unlock()
	k.mu.RLock()
	recent := k.now().Sub(k.triedAt) < KeyRefetchInterval
	k.mu.RUnlock()
	if !recent {
		k.fetch(ctx)
	}
}

// fetch reads the key set. It keeps the keys there were when it fails, and says so once per
// outage.
func (k *keySet) fetch(ctx context.Context) {
	ctx = context.WithoutCancel(ctx) // a fetch serves every waiting request, not only the one that asked
	keys, err := k.download(ctx)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.triedAt = k.now()
	if err != nil {
		if !k.failing {
			k.log.Warn("auth: the OpenID provider's key set can't be fetched; the keys fetched before still verify",
				"url", k.url, "error", err)
		}
		k.failing = true
		return
	}
	if k.failing {
		k.log.Info("auth: the OpenID provider's key set is fetched again", "url", k.url)
	}
	k.keys, k.fetchedAt, k.failing = keys, k.triedAt, false
}

// download GETs the key set and reads its signing keys.
func (k *keySet) download(ctx context.Context) ([]heldKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("key set: %s", resp.Status)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxKeySetBytes)).Decode(&set); err != nil {
		return nil, fmt.Errorf("key set: %w", err)
	}
	var keys []heldKey
	for _, jwk := range set.Keys {
		if !jwk.Valid() || !jwk.IsPublic() || jwk.Use == "enc" {
			continue
		}
		sum, err := jwk.Thumbprint(crypto.SHA256)
		if err != nil {
			continue
		}
		keys = append(keys, heldKey{jwk: jwk, id: base64.RawURLEncoding.EncodeToString(sum)})
	}
	if len(keys) == 0 {
		return nil, errors.New("key set: no public signing key")
	}
	return keys, nil
}
