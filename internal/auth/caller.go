package auth

import (
	"context"
	"slices"
)

// Role is a part a caller acts in.
type Role string

// The roles. Member, Librarian and Operator come from sign-in; the others name who acts when
// no person does.
const (
	Anonymous Role = "anonymous"
	Member    Role = "member"
	Librarian Role = "librarian"
	Operator  Role = "operator"
	// System is the service's own background work (the late-fines saga).
	System Role = "system"
	// Open is anyone, while sign-in is off.
	Open Role = "open"
	// Kiosk is a self-check terminal, over SIP2 (package kiosk): never a token's role, so no
	// HTTP request acts in it. Rule.Kiosk says what it may do.
	Kiosk Role = "kiosk"
)

// Caller is who sent a request: a signed-in person, the holder of ADMIN_TOKEN, anyone while
// sign-in is off, or nobody in particular.
type Caller struct {
	// Subject and Issuer identify a signed-in person: the token's sub and iss.
	Subject string
	Issuer  string
	// MemberID is the member the person is (AUTH_MEMBER_CLAIM); empty when the claim is
	// missing or is not a valid member id.
	MemberID string
	// Name is the token's name claim. Email is its email claim, only when email_verified is
	// true: the provider vouches for it.
	Name  string
	Email string
	// ExpiresAt is when the token stops being valid, in Unix seconds.
	ExpiresAt int64

	librarian, operator bool
	breakGlass          bool // ADMIN_TOKEN
	open                bool // sign-in is off
}

// SignedIn reports whether the caller is a person who signed in.
func (c Caller) SignedIn() bool { return c.Subject != "" && !c.breakGlass }

// Has reports whether the caller has a role. Every signed-in person is a member.
func (c Caller) Has(r Role) bool {
	switch r {
	case Member:
		return c.SignedIn()
	case Librarian:
		return c.librarian
	case Operator:
		return c.operator || c.breakGlass
	case Open:
		return c.open
	case Anonymous:
		return !c.SignedIn() && !c.breakGlass && !c.open
	}
	return false
}

// Roles lists the roles a caller has, for GET /accounts/me: all three while sign-in is off.
func (c Caller) Roles() []Role {
	if c.open {
		return []Role{Member, Librarian, Operator}
	}
	var roles []Role
	for _, r := range []Role{Member, Librarian, Operator} {
		if c.Has(r) {
			roles = append(roles, r)
		}
	}
	return roles
}

// IsOpen reports whether the caller came while sign-in is off.
func (c Caller) IsOpen() bool { return c.open }

// OpenCaller is anyone, while sign-in is off.
func OpenCaller() Caller { return Caller{open: true} }

// Access is what the rules granted a request: who the caller is and the role they act in.
type Access struct {
	Caller Caller
	// Role is the role whose rule let the request through: the part the caller acts in.
	Role Role
}

// Staff reports whether the caller acts as staff, who see every member's data: a librarian,
// an operator, or anyone while sign-in is off.
func (a Access) Staff() bool { return a.Role == Librarian || a.Role == Operator || a.Role == Open }

// Actor is who did something, as the log records it beside each event.
type Actor struct {
	Subject string
	Role    Role
	Issuer  string
}

// Actor is who acts under this access.
func (a Access) Actor() Actor {
	return Actor{Subject: a.Caller.Subject, Role: a.Role, Issuer: a.Caller.Issuer}
}

type accessKey struct{}

// WithAccess returns ctx carrying a.
func WithAccess(ctx context.Context, a Access) context.Context {
	return context.WithValue(ctx, accessKey{}, a)
}

// AccessFrom returns the access the rules granted the request of ctx. Without one (outside
// a request), it is an anonymous caller's.
func AccessFrom(ctx context.Context) Access {
	if a, ok := ctx.Value(accessKey{}).(Access); ok {
		return a
	}
	return Access{Role: Anonymous}
}

// setRoles reads role names into the caller; unknown names are ignored.
func (c *Caller) setRoles(names []string) {
	c.librarian = slices.Contains(names, string(Librarian))
	c.operator = slices.Contains(names, string(Operator))
}
