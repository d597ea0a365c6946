package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"library/internal/auth"
	"library/internal/errs"
)

// authorize lets a request through only when the rules allow its caller on its route. It runs
// after routing, so it knows the route's pattern and parameters; a route with no rule is
// refused to everyone. What the rule granted rides in the request's context (auth.AccessFrom)
// for handlers that narrow their answer by the caller.
//
// The limits (see Limits) are counted here, where the caller is known: every token is
// checked first, and a right one always passes this point; a refused one counts against its
// address, and is answered 429 rather than 401 once the address is over; then the request
// counts against its client (the caller, or the address); then, once allowed, an account-data
// call against its own limit.
func authorize(guard *auth.Guard, rules auth.Table, limits *limiter) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			pattern := chi.RouteContext(r.Context()).RoutePattern()
			rule, ok := rules.Match(r.Method, pattern, r.URL.RawQuery)
			if !ok {
				if !limits.request(w, r, auth.Caller{}) {
					WriteError(w, r, errs.E(errs.Forbidden, "no rule lets anyone call %s %s", r.Method, pattern))
				}
				return
			}
			var caller auth.Caller
			authorization := r.Header.Get("Authorization")
			if !rule.Public() { // the same answer for everyone: a token sent with it is not read
				var err error
				if caller, err = guard.Identify(r.Context(), authorization); err != nil {
					if errors.Is(err, auth.ErrNotReady) || !limits.authFailed(w, r) {
						refuseToken(w, r, err)
					}
					return
				}
			}
			if limits.request(w, r, caller) {
				return
			}
			memberID, err := ownParam(r, rule, caller)
			if err != nil {
				WriteError(w, r, err)
				return
			}
			access, allowed := rule.Decide(caller, memberID)
			if !allowed {
				// With sign-in off, a token on an admin action that is not ADMIN_TOKEN is a
				// wrong ADMIN_TOKEN.
				if access.Role == auth.Open && authorization != "" && limits.authFailed(w, r) {
					return
				}
				deny(w, r, access)
				return
			}
			if limits.accountDataCall(w, r, caller, pattern) {
				return
			}
			next.ServeHTTP(w, r.WithContext(auth.WithAccess(r.Context(), access)))
		})
	}
}

// ownParam is the route's {memberId}, decoded, when the rule's Own needs it.
func ownParam(r *http.Request, rule auth.Rule, caller auth.Caller) (string, error) {
	if rule.Member != auth.Own || !caller.SignedIn() || !strings.Contains(rule.Pattern, "{"+auth.OwnParam+"}") {
		return "", nil
	}
	return PathID(r, auth.OwnParam)
}

// challenge is the WWW-Authenticate of a 401 (RFC 6750).
const challenge = `Bearer realm="library"`

// refuseToken answers a request whose token could not be accepted.
func refuseToken(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, auth.ErrNotReady) {
		WriteError(w, r, errs.Wrap(errs.Unavailable, err, "sign-in can't be checked yet: the OpenID provider has not been reached; try again shortly"))
		return
	}
	why := "the bearer token was refused"
	if _, after, ok := strings.Cut(err.Error(), ": "); ok && errors.Is(err, auth.ErrInvalidToken) {
		why = "the bearer token was refused: " + after
	} else if errors.Is(err, auth.ErrMalformed) {
		why = auth.ErrMalformed.Error()
	}
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`%s, error="invalid_token", error_description=%q`, challenge, why))
	WriteError(w, r, errs.E(errs.Unauthorized, "%s; sign in again for a new one", why))
}

// deny answers a request the rules refused: 401 when the caller did not say who they are (so
// signing in may help), 403 when they did and none of their roles may.
func deny(w http.ResponseWriter, r *http.Request, a auth.Access) {
	switch a.Role {
	case auth.Open:
		w.Header().Set("WWW-Authenticate", challenge)
		WriteError(w, r, errs.E(errs.Unauthorized, "this needs Authorization: Bearer with the service's ADMIN_TOKEN"))
	case auth.Anonymous:
		w.Header().Set("WWW-Authenticate", challenge)
		WriteError(w, r, errs.E(errs.Unauthorized, "sign in: this needs Authorization: Bearer with an access token"))
	default:
		WriteError(w, r, errs.E(errs.Forbidden, "your roles (%s) may not do this", roleList(a.Caller)))
	}
}

func roleList(c auth.Caller) string {
	roles := c.Roles()
	names := make([]string, len(roles))
	for i, r := range roles {
		names[i] = string(r)
	}
	return strings.Join(names, ", ")
}

// OwnMember refuses a member acting for another member (what they would do names it in the
// problem); staff act for anyone. The rules table lets members in; this narrows them to
// themselves.
func OwnMember(ctx context.Context, memberID, what string) error {
	access := auth.AccessFrom(ctx)
	if access.Role != auth.Member {
		return nil
	}
	if access.Caller.MemberID == "" {
		return errs.E(errs.Forbidden, "your sign-in names no member id, so you can't %s", what)
	}
	if access.Caller.MemberID != memberID {
		return errs.E(errs.Forbidden, "a member may %s for themself only", what)
	}
	return nil
}
