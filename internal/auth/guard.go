package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"strings"

	"library/internal/config"
)

// AdminSubject is the subject the log records for what ADMIN_TOKEN did.
const AdminSubject = "admin-token"

// MinAdminTokenLength is the shortest ADMIN_TOKEN the service accepts.
const MinAdminTokenLength = config.MinAdminTokenLength

// Guard tells who sent a request, from its Authorization header.
type Guard struct {
	verifier *Verifier // nil: sign-in is off
	admin    [32]byte  // SHA-256 of ADMIN_TOKEN
	hasAdmin bool
}

// NewGuard returns a Guard that checks tokens with verifier, or none (sign-in off) when
// verifier is nil. adminToken, when set, is the break-glass token that acts as an operator.
func NewGuard(verifier *Verifier, adminToken string) *Guard {
	g := &Guard{verifier: verifier}
	if adminToken != "" {
		g.admin, g.hasAdmin = sha256.Sum256([]byte(adminToken)), true
	}
	return g
}

// Open reports whether sign-in is off.
func (g *Guard) Open() bool { return g.verifier == nil }

// Ready is nil when tokens can be checked: at once with sign-in off, otherwise once the
// provider's discovery has been read.
func (g *Guard) Ready() error {
	if g.verifier == nil {
		return nil
	}
	return g.verifier.Ready()
}

// ErrMalformed is an Authorization header that is not "Bearer <token>".
var ErrMalformed = errors.New("the Authorization header is not Bearer followed by a token")

// Identify returns the caller of a request with the given Authorization header ("" for
// none). Without a header the caller is anonymous, or Open while sign-in is off. Errors wrap
// ErrInvalidToken or ErrMalformed (the sender's fault), or are ErrNotReady.
func (g *Guard) Identify(ctx context.Context, authorization string) (Caller, error) {
	if authorization == "" {
		if g.Open() {
			return OpenCaller(), nil
		}
		return Caller{}, nil
	}
	scheme, token, ok := strings.Cut(authorization, " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		if g.Open() {
			return OpenCaller(), nil
		}
		return Caller{}, ErrMalformed
	}
	if g.isAdmin(token) {
		// With sign-in off it may also do what anyone may.
		return Caller{Subject: AdminSubject, breakGlass: true, open: g.Open()}, nil
	}
	if g.Open() {
		return OpenCaller(), nil
	}
	return g.verifier.Verify(ctx, token)
}

// isAdmin compares a token with ADMIN_TOKEN in constant time: both are hashed first, so that
// neither the content nor the length of the token leaks through timing.
func (g *Guard) isAdmin(token string) bool {
	if !g.hasAdmin {
		return false
	}
	presented := sha256.Sum256([]byte(token))
	expected := g.admin
	return subtle.ConstantTimeCompare(presented[:], expected[:]) == 1
}
