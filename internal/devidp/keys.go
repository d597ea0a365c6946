package devidp

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"sync"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// rsaKeyBits is the size of the signing keys: enough for RS256, quick to make in tests.
const rsaKeyBits = 2048

// signingKey is one RSA key pair. It serves both as op.SigningKey (the private half) and,
// through publicKey, as an op.Key in the key set.
type signingKey struct {
	id      string
	private *rsa.PrivateKey
}

func newSigningKey() (signingKey, error) {
	private, err := rsa.GenerateKey(rand.Reader, rsaKeyBits)
	if err != nil {
		return signingKey{}, fmt.Errorf("devidp: make RSA key: %w", err)
	}
	id := make([]byte, 8)
	if _, err := rand.Read(id); err != nil {
		return signingKey{}, fmt.Errorf("devidp: make key id: %w", err)
	}
	return signingKey{id: hex.EncodeToString(id), private: private}, nil
}

func (k signingKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k signingKey) Key() any                                    { return k.private }
func (k signingKey) ID() string                                  { return k.id }

// publicKey is the public half of a signingKey, as the key set serves it.
type publicKey struct{ signingKey }

func (k publicKey) Algorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k publicKey) Use() string                        { return "sig" }
func (k publicKey) Key() any                           { return &k.private.PublicKey }

// keyring holds every key made so far; the newest signs, and all are served in the JWKS so
// that tokens signed before a rotation still verify.
type keyring struct {
	mu   sync.Mutex
	keys []signingKey
}

func newKeyring() (*keyring, error) {
	k, err := newSigningKey()
	if err != nil {
		return nil, err
	}
	return &keyring{keys: []signingKey{k}}, nil
}

func (r *keyring) current() signingKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.keys[len(r.keys)-1]
}

func (r *keyring) rotate() error {
	k, err := newSigningKey()
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, k)
	return nil
}

// retire forgets the key with this id; the current key can't be retired.
func (r *keyring) retire(id string) error {
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

// public returns the public keys, newest first.
func (r *keyring) public() []op.Key {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]op.Key, 0, len(r.keys))
	for i := len(r.keys) - 1; i >= 0; i-- {
		keys = append(keys, publicKey{r.keys[i]})
	}
	return keys
}

// RotateKey makes a new RSA signing key the current one. The key set keeps serving the old
// public keys too, so tokens signed before still verify, and tokens signed after carry the
// new key's kid. It is a hook for tests.
func (p *Provider) RotateKey() error {
	return p.keys.rotate()
}

// RetireKey withdraws a key that no longer signs from the key set, as a provider does once it
// no longer trusts a key (or once the tokens it signed have expired): tokens signed with it no
// longer verify. It is a hook for tests.
func (p *Provider) RetireKey(id string) error {
	return p.keys.retire(id)
}

// Sign signs claims as they are with the current key (RS256, with its kid in the header and
// typ JWT), so that a test can make tokens the provider would never issue: expired ones, ones
// for another audience or issuer, ones without a claim. It is a hook for tests.
func (p *Provider) Sign(claims map[string]any) (string, error) {
	return p.SignTyped("JWT", claims)
}

// SignTyped is Sign with another header type (typ), such as at+jwt (RFC 9068), the type of
// other providers' access tokens. It is a hook for tests.
func (p *Provider) SignTyped(typ string, claims map[string]any) (string, error) {
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", fmt.Errorf("devidp: sign: %w", err)
	}
	key := p.keys.current()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: key.SignatureAlgorithm(), Key: &jose.JSONWebKey{Key: key.private, KeyID: key.id}},
		(&jose.SignerOptions{}).WithType(jose.ContentType(typ)))
	if err != nil {
		return "", fmt.Errorf("devidp: sign: %w", err)
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("devidp: sign: %w", err)
	}
	return jws.CompactSerialize()
}

// PublicKeyPEM returns the current signing key's public key as a PEM "PUBLIC KEY" block
// (PKIX), so that a test can forge a token that a careless verifier might accept, such as
// one signed HS256 with these bytes as the secret. It is a hook for tests.
func (p *Provider) PublicKeyPEM() []byte {
	der, err := x509.MarshalPKIXPublicKey(&p.keys.current().private.PublicKey)
	if err != nil {
		panic(fmt.Sprintf("devidp: marshal an RSA public key: %v", err)) // cannot happen for *rsa.PublicKey
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// KeyID returns the kid of the current signing key. It is a hook for tests.
func (p *Provider) KeyID() string {
	return p.keys.current().id
}
