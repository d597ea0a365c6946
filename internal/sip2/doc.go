// Package sip2 reads and writes the messages of the 3M Standard Interchange Protocol, version
// 2.00 (SIP2), which self-check kiosks (the SC) speak to a library system (the ACS). It is a
// codec only: it knows the shape of each message, never what one means.
//
// # Messages
//
// A message is a two-character command identifier ("11" Checkout, "12" its response, ...),
// fixed-length fields in the order of the specification, variable-length fields (a two-letter
// id, the value, "|"), and, when error detection is on, "AY" with a sequence number digit and
// "AZ" with a checksum, last. One table (Spec, Lookup, Specs) holds every message of SIP 2.00
// the package knows: requests 01, 09, 11, 15, 17, 19, 23, 25, 29, 35, 37, 63, 65, 93, 97, 99 and
// responses 10, 12, 16, 18, 20, 24, 26, 30, 36, 38, 64, 66, 94, 96, 98.
//
// # Checksum
//
// AZ is computed over the bytes as sent, after the character set's encoding, from the message's
// first character through "AZ" inclusive: their sum, kept to 16 bits, negated (two's
// complement), written as four uppercase hex digits (Checksum). Parse accepts lowercase digits.
//
// # What Parse refuses
//
// Parse returns a *ParseError, whose Kind says why, for: text that is not UTF-8 or holds CR or
// LF (KindCharset, KindMalformed); a command identifier the table lacks (KindUnknownCode); a
// checksum that is not four hex digits or not the sum of the message (KindChecksum); too few
// characters for the fixed fields, a fixed field holding "|", a variable field whose id is not a
// capital letter and a capital letter or digit, or AY or AZ anywhere but at the end
// (KindMalformed). The error-detection fields are found by position: a message that ends with
// "AZ" and four characters other than "|" carries a checksum, and "AY" and a digit just before
// it is its sequence number (a message may also carry AZ alone, as the resend messages often
// do: ChecksumOnly). Parse is lenient where kiosks differ and nothing is
// ambiguous: the last field's "|" may be missing, stray empty fields ("||") are skipped, field
// ids the table does not name are kept, and the variable fields a message requires are not
// enforced (Message.Missing lists them). It never acts on a field's content: dates and flags
// are the caller's to read (ParseDate, FixedField).
//
// # What Encode guarantees
//
// Encode writes a message only if it fits the table: a known code, exactly the fixed fields of
// the specification, each exactly its length in characters, field ids as Parse wants them (AY
// and AZ are written from Seq and HasSeq, never from Fields), and no "|", CR or LF in any value.
// Whatever Encode writes, Parse reads back as the same Message.
//
// # Framing
//
// Messages end with CR (the specification's terminator), LF or CRLF. Reader ends a message at
// the first CR or LF whatever Framing.LineEnd says, and skips empty lines, so the LF of a CRLF
// is dropped at the start of the next message; Writer appends Framing.LineEnd (CR by default).
// The character set is UTF-8 or IBM code page 850 (Framing.Charset); Reader hands out UTF-8 and
// Writer encodes into the code page, refusing a character it lacks. A message longer than
// Framing.MaxLength bytes (4096 by default) is a KindTooLong error as soon as the limit is
// passed, and the Reader skips the rest of it up to its terminator: it never holds more.
//
// # Dates
//
// The specification's date is 18 characters, "YYYYMMDDZZZZHHMMSS", where ZZZZ is four blanks for
// local time or a zone such as "   Z" for UTC. FormatDate writes local time with four blanks, as
// Koha, Evergreen and FOLIO do and kiosks expect; FormatDateUTC writes "   Z"; ParseDate reads
// both, and the military zone letters.
package sip2
