package devidp

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"testing"
	"time"

	gooidc "github.com/coreos/go-oidc/v3/oidc"
	"github.com/stretchr/testify/require"
)

func TestRotatedKeysKeepVerifying(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	v := i.accessVerifier(t)
	before, err := i.Token(t.Context(), "alice")
	require.NoError(t, err)
	verifiedClaims(t, v, before) // the verifier caches the first key

	require.NoError(t, i.RotateKey())
	after, err := i.Token(t.Context(), "alice")
	require.NoError(t, err)
	require.NotEqual(t, keyID(t, before), keyID(t, after))
	require.Equal(t, i.KeyID(), keyID(t, after))

	verifiedClaims(t, v, after) // an unknown kid makes the verifier fetch the keys again
	verifiedClaims(t, v, before)

	var jwks struct {
		Keys []map[string]any `json:"keys"`
	}
	getJSON(t, i.issuer+"/keys", &jwks)
	require.Len(t, jwks.Keys, 2)
}

func TestSignMakesTokensTheServiceMustJudge(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	v := i.accessVerifier(t)
	claims := func(aud string, exp time.Time) map[string]any {
		return map[string]any{"iss": i.issuer, "sub": "alice", "aud": aud, "exp": exp.Unix(), "roles": []string{}}
	}

	good, err := i.Sign(claims("library", time.Now().Add(time.Minute)))
	require.NoError(t, err)
	require.Equal(t, i.KeyID(), keyID(t, good))
	verifiedClaims(t, v, good)

	expired, err := i.Sign(claims("library", time.Now().Add(-time.Minute)))
	require.NoError(t, err)
	_, err = v.Verify(t.Context(), expired)
	var expiredErr *gooidc.TokenExpiredError
	require.True(t, errors.As(err, &expiredErr), "got %v", err)

	elsewhere, err := i.Sign(claims("another-service", time.Now().Add(time.Minute)))
	require.NoError(t, err)
	_, err = v.Verify(t.Context(), elsewhere)
	require.ErrorContains(t, err, "audience")
}

func TestPublicKeyPEMIsTheCurrentKey(t *testing.T) {
	t.Parallel()
	i := startIDP(t, Options{})
	block, _ := pem.Decode(i.PublicKeyPEM())
	require.NotNil(t, block)
	require.Equal(t, "PUBLIC KEY", block.Type)
	key, err := x509.ParsePKIXPublicKey(block.Bytes)
	require.NoError(t, err)
	require.True(t, i.keys.Current().Private().PublicKey.Equal(key.(*rsa.PublicKey)))
}
