// Package kioskcell measures checkouts at self-check kiosks over SIP2 against the same
// checkouts over HTTP, on a service process and a database of their own, at each of
// KioskLevels (Kiosks). Both doors lend copies nobody has had, to members of their own, so that
// the two are measured doing the same work.
package kioskcell
