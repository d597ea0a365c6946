// Package devidp is a small OpenID Connect provider for local demos and for tests, built on
// the op package of github.com/zitadel/oidc/v3. It is never for production: its users and
// their plain-text passwords come from a JSON file (or DefaultUsers), everything it issues
// lives in memory and is lost on restart, its signing keys are made at start, and it allows
// plain http for its issuer and for loopback redirect URIs.
//
// What it promises:
//
//   - Discovery at /.well-known/openid-configuration, keys at /keys, and the op endpoints
//     /authorize, /oauth/token, /userinfo, /revoke, /oauth/introspect and /end_session,
//     plus its own sign-in page at /login, which lists the users with their passwords when
//     Options.ShowUsers says so (for the built-in demo users), and never otherwise.
//   - Access tokens are JWTs signed RS256 with iss = Options.Issuer, aud containing
//     Options.Audience, sub = User.ID, exp = now + Options.TokenLifetime, and the private
//     claims roles (an array, possibly empty), email, email_verified, name and
//     preferred_username; their aud is Options.Audience alone. ID tokens are for the web app's
//     client alone (aud and azp are its id, never Options.Audience), so that the service can't
//     take one for an access token; they and userinfo carry the same profile claims.
//   - The web app's client (Options.WebClientID) is public: no secret, authorization code
//     with PKCE S256 required, refresh tokens with offline_access, and any http redirect URI
//     on a loopback host (localhost, 127.0.0.1, [::1]) at any port and path, plus
//     Options.RedirectURIs. It signs out at /end_session with client_id and
//     post_logout_redirect_uri alone: no id_token_hint is needed.
//   - Every user is also a confidential client (id = Username, secret = Password) that may
//     use the client_credentials grant, for tokens in scripts:
//     curl -u libby:libby-password -d grant_type=client_credentials $ISSUER/oauth/token
//   - Cross-origin requests are allowed from loopback origins and from the origins of
//     Options.RedirectURIs.
//   - RotateKey, RetireKey, Sign, SignTyped, PublicKeyPEM and Token are hooks for tests.
package devidp
