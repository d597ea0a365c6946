// Package kiosk serves self-check kiosks, book drops and sorters over SIP2 (3M's Standard
// Interchange Protocol 2.00; package sip2 is the codec). Every replica runs a listener; a
// connection is a session of one terminal; each message is mapped to the same services, and the
// same rules table (auth.Rule.Kiosk), that the HTTP API uses. It is an adapter, never a second
// domain: a checkout over SIP2 is books.Service.Lend, as POST /books/{bookId}/loans is.
//
// # Sessions
//
// Before a terminal logs in (93, checked by package terminals), a session answers nothing but
// 99 (status): any other message closes the connection. Three failed logins close it too. A
// logged-in terminal acts in the log as {sub: "terminal:NAME", role: "kiosk"}. A member is shown
// to the session by card (AA) and PIN (AD): the PIN is checked by the member's account, which
// counts wrong PINs in the log, so five in a row lock the card at every kiosk, whichever replica
// each try reaches. Once shown, the same card and PIN are not checked again in the session (the
// session keeps a keyed hash of the PIN, never the PIN). An idle connection is closed after
// Options.IdleTimeout; at most Options.MaxConnections are served at once, and one more is
// closed at once, so that the kiosk tries another replica.
//
// # Retries
//
// A kiosk resends a message whose answer it did not get, on the same connection or, after a
// reconnect, on another replica. The protocol has no idempotency key, so one is derived from
// what identifies the transaction: the terminal, the message's code, its transaction date, and
// its patron and item (a fee's transaction id, BK, alone identifies a payment). That derived id
// is the command's id, and for a checkout the loan's id too. The log answers a command id it
// has seen with the events the first attempt recorded, and each answer that changes something
// is made from those events (the due date, the hold trapped, the time recorded), never from
// state read afterwards: the retry gets the first answer, byte for byte, and nothing is done
// twice. A refused message records nothing, as over HTTP, and is decided again when resent.
//
// # Errors
//
// A message that does not parse, or whose checksum (AZ) is wrong, is answered 96 (please
// resend) and acts on nothing. 97 asks for the last answer again. A refusal is answered in the
// protocol's own flags, with a screen message (AF) a member can read; a store that can't be
// reached is a refusal too ("try again"), never a closed connection. A PIN, a terminal's
// password and a card number never appear in logs, spans or errors; the card is in the log's
// metadata of what the kiosk did for its member.
package kiosk
