package auth

import (
	"fmt"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"library/internal/validate"
)

// caller reads a verified token's claims: its times (with MaxClockSkew), its roles and member
// id, and the person's name and verified email.
func (v *Verifier) caller(token *oidc.IDToken, claims map[string]any, now time.Time) (Caller, error) {
	if token.Expiry.IsZero() {
		return Caller{}, fmt.Errorf("%w: it has no expiry (exp)", ErrInvalidToken)
	}
	if now.After(token.Expiry.Add(MaxClockSkew)) {
		return Caller{}, fmt.Errorf("%w: it has expired", ErrInvalidToken)
	}
	if nbf, ok := claims["nbf"].(float64); ok && now.Add(MaxClockSkew).Before(time.Unix(int64(nbf), 0)) {
		return Caller{}, fmt.Errorf("%w: it is not valid yet (nbf)", ErrInvalidToken)
	}
	if token.Subject == "" {
		return Caller{}, fmt.Errorf("%w: it names no subject (sub)", ErrInvalidToken)
	}
	c := Caller{Subject: token.Subject, Issuer: token.Issuer, ExpiresAt: token.Expiry.Unix()}
	c.setRoles(strings1(lookup(claims, v.cfg.RolesClaim)))
	if id, ok := lookup(claims, v.cfg.MemberClaim).(string); ok && validate.IsID(id) {
		c.MemberID = id
	}
	c.Name, _ = claims["name"].(string)
	if verified, _ := claims["email_verified"].(bool); verified {
		if email, ok := claims["email"].(string); ok && validate.Email("email", email) == nil {
			c.Email = email
		}
	}
	return c, nil
}

// lookup follows a dotted path ("realm_access.roles") through nested objects.
func lookup(claims map[string]any, path string) any {
	var at any = claims
	for part := range strings.SplitSeq(path, ".") {
		object, ok := at.(map[string]any)
		if !ok {
			return nil
		}
		at = object[part]
	}
	return at
}

// strings1 reads a roles claim: an array of strings, or one string of space-separated names
// (as some providers send scopes).
func strings1(v any) []string {
	switch v := v.(type) {
	case string:
		return strings.Fields(v)
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// reason says why go-oidc refused a token, in words that name no key and repeat no token.
func reason(err error) string {
	text := err.Error()
	switch {
	case strings.Contains(text, "unexpected signature algorithm"), strings.Contains(text, "unsupported algorithm"):
		return "it is not signed with an allowed algorithm (asymmetric ones only)"
	case strings.Contains(text, "malformed jwt"):
		return "it is not a well-formed signed JWT"
	case strings.Contains(text, "failed to verify signature: malformed jwt"):
		return "it is not a well-formed signed JWT"
	case strings.Contains(text, "failed to verify signature"):
		return "its signature does not match the provider's keys"
	case strings.Contains(text, "different provider"):
		return "it was issued by another provider"
	case strings.Contains(text, "expected audience"):
		return "it is meant for another audience"
	case strings.Contains(text, "failed to unmarshal claims"):
		return "its claims can't be read"
	}
	return "it could not be verified"
}
