// Package accountsapi is the HTTP face of package accounts: a member's account, its history,
// fines, payments, library card and PIN, GET /accounts/me, and the member's erasure and export
// (docs/api.md). Each command runs through accounts.Service.
//
// It promises that the handlers narrow what the rules table (package auth) lets a role do: a
// member's email address comes from their sign-in, a member pays at most what they owe, a
// member sees staff in their history by role only, a loan's fine is the late-fines saga's
// alone, and no answer shows a PIN's hash (accounts.Shown). What the rest of the library keeps
// about a member (their loans, the emails sent them, the events waiting in the processors) it
// sees through Elsewhere, which internal/app wires, so that it depends on no other feature's
// package.
package accountsapi
