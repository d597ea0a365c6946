package sip2

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Parse reads one message: line is its text without the terminator, in UTF-8, and, when it
// carries AZ, the checksum is the sum of these very bytes. For a connection in another character
// set use Framing.Parse or Reader.ReadMessage, which check the checksum against the bytes as sent.
func Parse(line []byte) (Message, error) {
	return parse(line, line)
}

// Parse reads one message whose text a Reader of f decoded to UTF-8 (line, without the
// terminator), and checks its checksum against the bytes as they were sent in f's character set.
func (f Framing) Parse(line []byte) (Message, error) {
	cs, err := f.charset()
	if err != nil {
		return Message{}, parseErr(KindCharset, "", "%v", err)
	}
	if !utf8.Valid(line) {
		return Message{}, parseErr(KindCharset, "", "not UTF-8 text")
	}
	raw, err := cs.encode(line)
	if err != nil {
		return Message{}, parseErr(KindCharset, "", "%v", err)
	}
	return parse(line, raw)
}

// parse reads text, the message decoded to UTF-8; raw is the same message as it was sent, over
// which the checksum is summed.
func parse(text, raw []byte) (Message, error) {
	if !utf8.Valid(text) {
		return Message{}, parseErr(KindCharset, "", "not UTF-8 text")
	}
	if bytes.ContainsAny(text, "\r\n") {
		return Message{}, parseErr(KindMalformed, "", "a line terminator inside the message")
	}
	if len(text) < 2 {
		return Message{}, parseErr(KindMalformed, "", "%d characters, shorter than a command identifier", len(text))
	}
	var m Message
	m.Code = string(text[:2])
	body, err := m.readTrailer(string(text), raw)
	if err != nil {
		return Message{}, err
	}
	spec, ok := specs[m.Code]
	if !ok {
		return Message{}, parseErr(KindUnknownCode, m.Code, "no such command identifier")
	}
	rest, err := m.readFixed(spec, body[2:])
	if err != nil {
		return Message{}, err
	}
	if err := m.readFields(rest); err != nil {
		return Message{}, err
	}
	if len(m.Fields) == 0 && endsLikeTrailer(body[:len(body)-len(rest)]) {
		// Encode refuses such a message, as it could not be read back: refuse it here too.
		return Message{}, parseErr(KindMalformed, m.Code, "the fixed fields end like an error-detection field")
	}
	return m, nil
}

// readTrailer takes the error-detection fields off the end of text, where they must be: "AZ"
// and four characters other than "|" last, after "AY" and a digit when there is a sequence
// number. It checks the checksum against raw and returns the text before them.
func (m *Message) readTrailer(text string, raw []byte) (string, error) {
	if !hasChecksum(text) {
		return text, nil // an AY without AZ is refused by readFields
	}
	n := len(text)
	given := text[n-4:]
	if !isHex(given) {
		return "", parseErr(KindChecksum, m.Code, "AZ%s is not four hex digits", given)
	}
	if len(raw) < 6 || !strings.EqualFold(string(raw[len(raw)-6:]), "AZ"+given) {
		return "", parseErr(KindChecksum, m.Code, "the bytes as sent do not end with AZ%s", given)
	}
	if want := Checksum(raw[:len(raw)-4]); !strings.EqualFold(given, want) {
		return "", parseErr(KindChecksum, m.Code, "AZ%s, but the message sums to %s", given, want)
	}
	body := text[:n-6]
	if !hasSeq(body) {
		m.ChecksumOnly = true
		return body, nil
	}
	k := len(body)
	m.Seq, m.HasSeq = int(body[k-1]-'0'), true
	return body[:k-3], nil
}

// hasChecksum says whether s ends with "AZ" and four characters other than "|", after the
// command identifier. A message's last field ends with "|", so its value can't be taken for one.
func hasChecksum(s string) bool {
	n := len(s)
	return n >= 8 && s[n-6:n-4] == "AZ" && !strings.Contains(s[n-4:], "|")
}

// hasSeq says whether s ends with "AY" and a digit, after the command identifier.
func hasSeq(s string) bool {
	k := len(s)
	return k >= 5 && s[k-3:k-1] == "AY" && s[k-1] >= '0' && s[k-1] <= '9'
}

// readFixed cuts the fixed fields off s by the lengths of spec, in characters, and returns what
// follows them.
func (m *Message) readFixed(spec Spec, s string) (string, error) {
	for _, f := range spec.Fixed {
		end, count := 0, 0
		for end < len(s) && count < f.Len {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
			count++
		}
		if count < f.Len {
			return "", parseErr(KindMalformed, m.Code, "fixed field %q: want %d characters, have %d", f.Name, f.Len, count)
		}
		if strings.Contains(s[:end], "|") {
			return "", parseErr(KindMalformed, m.Code, "fixed field %q holds a field delimiter: %q", f.Name, s[:end])
		}
		m.Fixed = append(m.Fixed, s[:end])
		s = s[end:]
	}
	return s, nil
}

// readFields splits s into variable fields: each an id of two characters, its value, and "|";
// the last "|" may be missing.
func (m *Message) readFields(s string) error {
	for s != "" {
		seg, rest, _ := strings.Cut(s, "|")
		s = rest
		if seg == "" {
			continue // a stray delimiter, as some clients put after the fixed fields
		}
		if len(seg) < 2 || !validID(seg[:2]) {
			return parseErr(KindMalformed, m.Code, "field %q has no id of a capital letter and a capital letter or digit", seg)
		}
		if seg[:2] == "AY" || seg[:2] == "AZ" {
			return parseErr(KindMalformed, m.Code, "error-detection field %q is not at the end of the message", seg)
		}
		m.Fields = append(m.Fields, Field{ID: seg[:2], Value: seg[2:]})
	}
	return nil
}

func validID(id string) bool {
	if len(id) != 2 {
		return false
	}
	first, second := id[0], id[1]
	return first >= 'A' && first <= 'Z' && (second >= 'A' && second <= 'Z' || second >= '0' && second <= '9')
}

func isHex(s string) bool {
	for i := range len(s) {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'A' || c > 'F') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
