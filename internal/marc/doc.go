// Package marc reads and writes MARC 21 records, as a library's catalogue exports them: ISO 2709
// ("binary MARC", .mrc) and MARCXML, either of them gzip-compressed. It promises that reading
// a file of any size holds one record at a time, that a record it refuses costs only itself
// (the next call reads the next one), that whatever the bytes it never panics and always
// comes to the end, and that whatever it reads its writers write again, and it reads back the
// same.
//
// # Records
//
// A Record is a leader and fields in their order. A control field (its tag begins "00": 001
// to 009) holds text; a data field holds two indicators and subfields in order, a field or a
// subfield code possibly repeated. Record.ControlNumber is the 001; Record.Field, Record.All,
// Record.Control, Field.Subfield and Field.Values read the rest. Text is UTF-8.
//
// # Reading
//
// NewReader tells the format by the content: gzip by its magic bytes (and then what is inside
// the same way), MARCXML when the first character after a byte order mark and white space is
// "<", ISO 2709 otherwise. Reader.Next returns one record at a time, a *RecordError for a
// record refused (its ordinal, its byte offset, its line in MARCXML, its 001 when that could be
// read, a Reason and a message, and whether nothing after it can be read: Last), or io.EOF at
// the end. An error of the input's own (a read that failed, a corrupt gzip stream) is returned
// as it is, and again on every call after.
//
// ISO 2709 is read record by record by the record length in the leader, through a buffer that
// holds the longest record the format can write (MaxRecordLength, 99999 bytes): a record is
// looked at whole before any of it is consumed. A record is refused when its leader is not
// digits where lengths are, when a record terminator (0x1D) comes before the end its length
// gives or is not at that end, when its directory is not whole entries ended by a field
// terminator or points past the record, when a field does not end with a field terminator
// (0x1E), when a data field has no indicators or text before its first subfield, when its
// text is not UTF-8 in a record whose leader/09 is "a", and when it is MARC-8 outside ASCII
// (below). After a refusal the reader goes on after the record's terminator, so a bad record
// costs only itself; when the terminator is missing it goes on at the record length if a leader
// stands there, and at the next terminator if not. Line ends and blanks between records are
// skipped. A file cut in the middle of its last record ends with ReasonTruncated. The directory
// is read with MARC 21's entry map (4500), whatever leader/20-23 say.
//
// MARCXML is read with encoding/xml, token by token, one <record> at a time: each record in the
// slim namespace (SlimNamespace) or in none, wherever it stands (in a <collection>, alone, in an
// OAI-PMH response). Elements the format does not have are left out. A record whose elements
// are wrong (no leader, a tag or an indicator or a subfield code of the wrong shape) is
// refused, and the next is read. The decoder cannot go on after XML that is not well-formed,
// or not UTF-8, or cut short: that is ReasonBadXML, ReasonInvalidUTF8 or ReasonTruncated, and
// the end. The decoder is never given more than MaxXMLRecord bytes for one record, or between
// two, so that a text or a tag of any length is not held (ReasonTooLarge, and the end). MARCXML
// is Unicode whatever leader/09 says, so a blank there is read as it is.
//
// # MARC-8
//
// A record whose leader/09 is blank is in MARC-8, an ISO 2022 code of a dozen character sets
// switched by escape sequences, with combining marks before their letter. No Go package that
// reads it is both well kept and importable: the Go MARC libraries (github.com/miku/marc21,
// github.com/gsiems/go-marc21) list MARC-8 as not done, and the one decoder found is an internal
// package of a young module, which another module cannot import. Writing one is a project of
// its own, and yaz-marcdump (Index Data's YAZ, packaged by the distributions) is a mature
// converter. So a MARC-8 record is read only when all its bytes are ASCII and it has no escape
// (0x1B): those are the same bytes in UTF-8, and it is read with its leader as it was. Any other
// is refused with ReasonMARC8, whose message gives the command that converts the file
// (Marc8Conversion):
//
//	yaz-marcdump -f MARC-8 -t UTF-8 -o marc -l 9=97 in.mrc > out.mrc
//
// # Writing
//
// ISO2709Writer and MarshalISO2709 write UTF-8, and work out the leader's record length
// (00-04), base address (12-16), character coding (09, a), 10-11 (22) and 20-23 (4500),
// keeping the rest of the leader; an empty leader is a book's. XMLWriter writes a <collection>
// in the slim namespace one record at a time, each with the leader ISO 2709 would have, and
// Close ends it. Both refuse, writing nothing of it, a record the format cannot carry: a tag
// that is not three letters or digits, an indicator or subfield code that is not printable
// ASCII, text that is not UTF-8 or holds a terminator or delimiter, a field over 9999 bytes, a
// record over 99999, and in MARCXML a control character other than tab, line feed and carriage
// return. Their errors are in ErrUnwritable's chain.
package marc
