package devidp

import (
	"context"
	"time"

	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// CreateAccessToken records a new access token and returns its id (the JWT's jti) and expiry.
func (s *storage) CreateAccessToken(_ context.Context, req op.TokenRequest) (string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruneLocked()
	id, exp := s.addAccessTokenLocked(req)
	return id, exp, nil
}

func (s *storage) addAccessTokenLocked(req op.TokenRequest) (string, time.Time) {
	id, exp := randomID(), s.p.now().Add(s.p.opts.TokenLifetime)
	s.accessTokens[id] = accessToken{subject: req.GetSubject(), clientID: clientIDOf(req), expiry: exp}
	return id, exp
}

// CreateAccessAndRefreshTokens records a new access token and a new refresh token. On a
// refresh, the refresh token used is replaced: a second use of it fails.
func (s *storage) CreateAccessAndRefreshTokens(_ context.Context, req op.TokenRequest, current string) (string, string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruneLocked()
	if current != "" {
		if _, ok := s.refreshTokens[current]; !ok {
			return "", "", time.Time{}, oidc.ErrInvalidGrant().WithDescription("refresh token already used or expired")
		}
		delete(s.refreshTokens, current)
	}
	r := refreshToken{
		token: randomID(), subject: req.GetSubject(), clientID: clientIDOf(req),
		audience: req.GetAudience(), scopes: req.GetScopes(), expiry: s.p.now().Add(refreshTTL),
	}
	if signIn, ok := req.(interface {
		GetAMR() []string
		GetAuthTime() time.Time
	}); ok {
		r.amr, r.authTime = signIn.GetAMR(), signIn.GetAuthTime()
	}
	s.refreshTokens[r.token] = r
	id, exp := s.addAccessTokenLocked(req)
	return id, r.token, exp, nil
}

// TokenRequestByRefreshToken returns a copy of what a refresh token stands for.
func (s *storage) TokenRequestByRefreshToken(_ context.Context, token string) (op.RefreshTokenRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.refreshTokens[token]
	if !ok || s.p.now().After(r.expiry) {
		return nil, errNotFound
	}
	return &r, nil
}

// GetRefreshTokenInfo returns the user of a refresh token; the token is its own id.
func (s *storage) GetRefreshTokenInfo(_ context.Context, clientID, token string) (string, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.refreshTokens[token]
	if !ok || r.clientID != clientID {
		return "", "", op.ErrInvalidRefreshToken
	}
	return r.subject, token, nil
}

// RevokeToken forgets an access token (by id) or a refresh token, if the client owns it.
// An unknown token is already as good as revoked.
func (s *storage) RevokeToken(_ context.Context, tokenOrID, _, clientID string) *oidc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.accessTokens[tokenOrID]; ok {
		if t.clientID != clientID {
			return oidc.ErrInvalidClient().WithDescription("token was not issued to this client")
		}
		delete(s.accessTokens, tokenOrID)
	}
	if r, ok := s.refreshTokens[tokenOrID]; ok {
		if r.clientID != clientID {
			return oidc.ErrInvalidClient().WithDescription("token was not issued to this client")
		}
		delete(s.refreshTokens, tokenOrID)
	}
	return nil
}

// TerminateSession, on sign-out, forgets the user's refresh tokens for the client. There is
// no sign-in session to end: every authorize asks for the password again.
func (s *storage) TerminateSession(_ context.Context, userID, clientID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for token, r := range s.refreshTokens {
		if r.subject == userID && r.clientID == clientID {
			delete(s.refreshTokens, token)
		}
	}
	return nil
}

// activeToken returns the user of a known, unexpired access token.
func (s *storage) activeToken(tokenID, subject string) (User, accessToken, bool) {
	s.mu.Lock()
	t, ok := s.accessTokens[tokenID]
	s.mu.Unlock()
	if !ok || t.subject != subject || s.p.now().After(t.expiry) {
		return User{}, accessToken{}, false
	}
	u, ok := s.p.users.byID[subject]
	return u, t, ok
}

// SetUserinfoFromScopes is deprecated in op and left empty; SetUserinfoFromRequest does it.
func (s *storage) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

// SetUserinfoFromRequest fills the ID token's profile claims, whatever the scopes.
func (s *storage) SetUserinfoFromRequest(_ context.Context, info *oidc.UserInfo, req op.IDTokenRequest, _ []string) error {
	u, ok := s.p.users.byID[req.GetSubject()]
	if !ok {
		return errNotFound
	}
	setUserinfo(info, u)
	return nil
}

// SetUserinfoFromToken answers the userinfo endpoint for a known, unexpired access token.
func (s *storage) SetUserinfoFromToken(_ context.Context, info *oidc.UserInfo, tokenID, subject, _ string) error {
	u, _, ok := s.activeToken(tokenID, subject)
	if !ok {
		return errNotFound
	}
	setUserinfo(info, u)
	return nil
}

// SetIntrospectionFromToken answers the introspection endpoint for a known, unexpired token.
func (s *storage) SetIntrospectionFromToken(_ context.Context, resp *oidc.IntrospectionResponse, tokenID, subject, _ string) error {
	u, t, ok := s.activeToken(tokenID, subject)
	if !ok {
		return errNotFound
	}
	info := new(oidc.UserInfo)
	setUserinfo(info, u)
	resp.SetUserInfo(info)
	resp.ClientID, resp.Expiration, resp.JWTID = t.clientID, oidc.FromTime(t.expiry), tokenID
	resp.Audience = []string{s.p.opts.Audience}
	resp.Username = u.Username
	return nil
}

// GetPrivateClaimsFromScopes returns the access token's private claims for a user.
func (s *storage) GetPrivateClaimsFromScopes(_ context.Context, userID, _ string, _ []string) (map[string]any, error) {
	u, ok := s.p.users.byID[userID]
	if !ok {
		return nil, errNotFound
	}
	return u.claims(), nil
}

// GetPrivateClaimsFromRequest returns the access token's private claims, whatever the scopes.
func (s *storage) GetPrivateClaimsFromRequest(ctx context.Context, req op.TokenRequest, scopes []string) (map[string]any, error) {
	return s.GetPrivateClaimsFromScopes(ctx, req.GetSubject(), "", scopes)
}

// setUserinfo puts u's profile into info. The claims also go into its extra claims, so that
// email_verified and roles appear even when false or empty.
func setUserinfo(info *oidc.UserInfo, u User) {
	info.Subject = u.ID
	info.Name, info.PreferredUsername = u.Name, u.Username
	info.Email, info.EmailVerified = u.Email, oidc.Bool(u.EmailVerified)
	for k, v := range u.claims() {
		info.AppendClaims(k, v)
	}
}
