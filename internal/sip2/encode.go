package sip2

import (
	"strings"
	"unicode/utf8"
)

// Encode writes m as UTF-8 text without a terminator. It checks m against the table: a known
// code, as many fixed fields as the specification has, each exactly its length in characters,
// field ids of a capital letter and a capital letter or digit (AY and AZ are written from Seq and HasSeq, never
// from Fields), and no "|", CR or LF in any field. When HasSeq it appends AY and the sequence
// number, then AZ and the checksum; when only ChecksumOnly, AZ and the checksum. What Encode
// returns, Parse reads back as m.
func (m Message) Encode() ([]byte, error) {
	return m.encode(utf8Charset)
}

// Encode writes m as Message.Encode does, in f's character set; the checksum is the sum of the
// bytes in that character set. The terminator is not written: Writer appends it.
func (f Framing) Encode(m Message) ([]byte, error) {
	cs, err := f.charset()
	if err != nil {
		return nil, encodeErr(KindCharset, m.Code, "%v", err)
	}
	return m.encode(cs)
}

func (m Message) encode(cs charset) ([]byte, error) {
	body, err := m.body()
	if err != nil {
		return nil, err
	}
	out, err := cs.encode([]byte(body))
	if err != nil {
		return nil, encodeErr(KindCharset, m.Code, "%v", err)
	}
	switch {
	case m.HasSeq:
		if m.Seq < 0 || m.Seq > 9 {
			return nil, encodeErr(KindMalformed, m.Code, "sequence number %d is not a digit", m.Seq)
		}
		out = append(out, 'A', 'Y', byte('0'+m.Seq), 'A', 'Z')
		out = append(out, Checksum(out)...)
	case m.ChecksumOnly:
		out = append(out, 'A', 'Z')
		out = append(out, Checksum(out)...)
	}
	return out, nil
}

// body is the message's text before its error-detection fields.
func (m Message) body() (string, error) {
	spec, ok := specs[m.Code]
	if !ok {
		return "", encodeErr(KindUnknownCode, m.Code, "no such command identifier")
	}
	if len(m.Fixed) != len(spec.Fixed) {
		return "", encodeErr(KindMalformed, m.Code, "%d fixed fields, the specification has %d", len(m.Fixed), len(spec.Fixed))
	}
	var b strings.Builder
	b.WriteString(m.Code)
	for i, f := range spec.Fixed {
		v := m.Fixed[i]
		if n := utf8.RuneCountInString(v); n != f.Len {
			return "", encodeErr(KindMalformed, m.Code, "fixed field %q is %d characters, not %d", f.Name, n, f.Len)
		}
		if err := checkText(m.Code, f.Name, v); err != nil {
			return "", err
		}
		b.WriteString(v)
	}
	if len(m.Fields) == 0 && endsLikeTrailer(b.String()) {
		return "", encodeErr(KindMalformed, m.Code, "the fixed fields end like an error-detection field: %q", b.String())
	}
	for _, f := range m.Fields {
		if !validID(f.ID) || f.ID == "AY" || f.ID == "AZ" {
			return "", encodeErr(KindMalformed, m.Code, "field id %q is not a capital letter and a capital letter or digit, other than AY and AZ", f.ID)
		}
		if err := checkText(m.Code, f.ID, f.Value); err != nil {
			return "", err
		}
		b.WriteString(f.ID)
		b.WriteString(f.Value)
		b.WriteByte('|')
	}
	return b.String(), nil
}

func checkText(code, name, v string) error {
	if !utf8.ValidString(v) {
		return encodeErr(KindCharset, code, "field %q is not UTF-8 text", name)
	}
	if strings.ContainsAny(v, "|\r\n") {
		return encodeErr(KindMalformed, code, "field %q holds a delimiter or line end: %q", name, v)
	}
	return nil
}

// endsLikeTrailer says whether Parse would take the end of s for error-detection fields.
func endsLikeTrailer(s string) bool {
	return hasChecksum(s) || hasSeq(s)
}
