// Package pii keeps members' personal data erasable in an append-only log (crypto-shredding).
//
// Personal fields (a member's name and email, what staff wrote about them in a fine's reason)
// are written to the log sealed with a data key of that member's own: AES-256-GCM, with the
// stream and the event's version as associated data, so that a sealed value can't be moved to
// another event and read there. Data keys are
// kept apart from the log (member_keys), each wrapped (sealed) by a key-encryption key from
// PII_KEY. Several key-encryption keys may be given, each with an id: the first wraps new data
// keys and the others still unwrap old ones, so the KEK can be rotated without rewriting the
// log (`library keys rotate` rewraps every data key with the first).
//
// Erasing a member deletes their data key: every sealed value of theirs, in the log, in
// backups of it, and in any copy of an event, can no longer be read by anyone. A reader
// without the key gets Erased, never an error and never the sealed text. The store keeps a
// mark in place of the key, and an erased member never gets a key again (ErrErased), however
// late a writer asks. A member who never had one (their values were written before sealing)
// gets one when something of theirs is first sealed, their account's snapshot included.
//
// What an operator must keep: the KEKs (PII_KEY), apart from the database's backups. Without
// them no personal data can be read, and with them and a backup of member_keys, data keys
// deleted since that backup would come back: keep member_keys out of long-lived backups, or
// erase again after a restore.
package pii
