// Package auth decides who sent a request and what they may do.
//
// Who: a caller proves who they are with an access token (a JWT) from the one OpenID Connect
// provider the service trusts (AUTH_ISSUER). A Verifier checks it with go-oidc: the signature
// against the provider's published keys, the issuer, the audience (AUTH_AUDIENCE), the expiry
// and not-before times with at most a minute of clock skew, and the algorithm, which must be
// asymmetric: "none" and the HMAC algorithms are refused, so that the provider's public key
// can't be used as a shared secret.
//
// Access tokens only: a web app holds an ID token too, signed by the same provider and perhaps
// for the same audience, and it must open nothing. A token whose header type (typ) is at+jwt is
// an access token (RFC 9068). A token of another type is refused; an untyped one, or one typed
// JWT, is refused when it carries a claim only ID tokens carry (nonce, at_hash, c_hash), when
// Keycloak typed it ID, or when it was issued to the web app: azp is AUTH_CLIENT_ID and aud
// names it, as OpenID Connect wants of an ID token (azp alone would refuse the access tokens of
// the providers that name there the client that asked for them).
//
// Keys: the key set (the discovery document's jwks_uri) is fetched at start, and fetched again
// (a) when it is KeySetMaxAge (5 minutes) old, on the next token to verify, and (b) for a
// token whose kid names no key held, or that names none and no key held verifies it, so that
// rotation needs no restart. A token that names a key held but whose signature that key
// refuses is forged: it fetches nothing. Whatever the tokens, the key set is never fetched
// twice within KeyRefetchInterval (30 s), so a flood of forged tokens costs the provider one
// fetch in 30 s; a token signed by a new key within 30 s of the last fetch is refused until the
// next. A fetch that fails keeps the keys held.
//
// A token that passed is remembered, so a caller's next request costs a hash and a map lookup:
// until it expires, for at most TokenCacheLifetime (5 minutes), and only while the key that
// verified it is still in the key set, so a key the provider withdrew stops a token it signed
// within minutes. Roles come from a claim (AUTH_ROLES_CLAIM, a dotted path such as
// realm_access.roles), the member id from another (AUTH_MEMBER_CLAIM). The break-glass
// ADMIN_TOKEN, compared in constant time, acts as an operator.
//
// What: one table, Rules, says for every route what an anonymous caller, a member, a librarian
// and an operator may do: allow, deny, or "own" (only the caller's own member id in the path).
// A person has the union of their roles' rights; every signed-in person is a member. A route
// without a rule is refused to everyone, and a test walks the router to make sure none is
// missing. Where a rule allows a route but the answer depends on the caller (a member's own
// loans, at most what they owe), the handler narrows it with the Access that the rule granted.
//
// With sign-in off (AUTH=off, or in memory with no provider) every caller is an Open one, who
// may do everything but the admin actions, which still want ADMIN_TOKEN.
//
// Failure handling: until the provider's discovery document and key set have been read, a
// request that carries a token is answered 503 (never let through), and readiness says why;
// the Verifier keeps trying in the background. Once read, later outages of the provider keep
// the keys held. Tokens are never logged, and the reason a token was refused is told to its
// sender only in words that name no secret.
package auth
