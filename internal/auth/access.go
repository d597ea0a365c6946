package auth

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
)

// errNotAccessToken is the refusal of a token that the provider signed for the service's
// audience but that is not an access token: an ID token, most often, which a web app holds
// and may leak (in a logout URL, in logs), and which must not open the API.
var errNotAccessToken = fmt.Errorf("%w: it is not an access token", ErrInvalidToken)

// idTokenClaims are claims only ID tokens carry (OpenID Connect Core 1.0, 2 and 3.3.2.11).
var idTokenClaims = []string{"nonce", "at_hash", "c_hash"}

// accessTokenOnly refuses a verified token that is not an access token. A token whose header
// type (typ) is at+jwt is one (RFC 9068), from a provider that types its tokens. A token typed
// otherwise than JWT (or untyped) is something else: a logout token, say. An untyped one or one
// typed JWT is refused when it carries a claim only ID tokens carry, when Keycloak typed its
// payload ID, or when it was issued to the web app (azp is WebClientID, and aud names it, as
// OpenID Connect wants of an ID token): azp alone would refuse the access tokens of providers
// that name there the client that asked for them (Keycloak, Entra ID, Auth0).
func (v *Verifier) accessTokenOnly(headerType string, token *oidc.IDToken, claims map[string]any) error {
	switch strings.TrimPrefix(strings.ToLower(headerType), "application/") {
	case "at+jwt":
		return nil
	case "", "jwt":
	default:
		return errNotAccessToken
	}
	for _, claim := range idTokenClaims {
		if _, ok := claims[claim]; ok {
			return errNotAccessToken
		}
	}
	if typ, _ := claims["typ"].(string); strings.EqualFold(typ, "ID") {
		return errNotAccessToken
	}
	client := v.cfg.WebClientID
	if azp, _ := claims["azp"].(string); client != "" && azp == client && slices.Contains(token.Audience, client) {
		return errNotAccessToken
	}
	return nil
}
