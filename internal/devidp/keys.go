package devidp

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"
)

// RotateKey makes a new RSA signing key the current one. The key set keeps serving the old
// public keys too, so tokens signed before still verify, and tokens signed after carry the
// new key's kid. It is a hook for tests.
func (p *Provider) RotateKey() error {
	return p.keys.Rotate()
}

// RetireKey withdraws a key that no longer signs from the key set, as a provider does once it
// no longer trusts a key (or once the tokens it signed have expired): tokens signed with it no
// longer verify. It is a hook for tests.
func (p *Provider) RetireKey(id string) error {
	return p.keys.Retire(id)
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
	key := p.keys.Current()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: key.SignatureAlgorithm(), Key: &jose.JSONWebKey{Key: key.Private(), KeyID: key.ID()}},
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
	der, err := x509.MarshalPKIXPublicKey(&p.keys.Current().Private().PublicKey)
	if err != nil {
		panic(fmt.Sprintf("devidp: marshal an RSA public key: %v", err)) // cannot happen for *rsa.PublicKey
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// KeyID returns the kid of the current signing key. It is a hook for tests.
func (p *Provider) KeyID() string {
	return p.keys.Current().ID()
}
