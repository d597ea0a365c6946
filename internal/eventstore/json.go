package eventstore

import (
	"encoding/json"
	"strconv"
)

// AppendJSON appends m as json.Marshal encodes it, byte for byte, without its reflection and
// its copy: every event a store writes carries its metadata so encoded.
func (m Metadata) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	start := len(b)
	b = appendMember(b, start, `"commandId":`, m.CommandID)
	b = appendMember(b, start, `"command":`, m.Command)
	b = appendMember(b, start, `"fingerprint":`, m.Fingerprint)
	b = appendMember(b, start, `"correlationId":`, m.CorrelationID)
	b = appendMember(b, start, `"traceparent":`, m.TraceParent)
	if m.Actor != (Actor{}) { // omitzero
		if len(b) > start {
			b = append(b, ',')
		}
		b = append(b, `"actor":{`...)
		inner := len(b)
		b = appendMember(b, inner, `"sub":`, m.Actor.Subject)
		b = appendMember(b, inner, `"role":`, m.Actor.Role)
		b = appendMember(b, inner, `"iss":`, m.Actor.Issuer)
		b = append(b, '}')
	}
	b = appendMember(b, start, `"card":`, m.Card)
	if m.Schema != 0 { // omitempty
		if len(b) > start {
			b = append(b, ',')
		}
		b = strconv.AppendInt(append(b, `"schema":`...), int64(m.Schema), 10)
	}
	return append(b, '}')
}

// appendMember appends the member name: value of an object begun at start, unless value is
// empty (omitempty).
func appendMember(b []byte, start int, name, value string) []byte {
	if value == "" {
		return b
	}
	if len(b) > start {
		b = append(b, ',')
	}
	return AppendJSONString(append(b, name...), value)
}

// AppendJSONString appends s as a JSON string, as encoding/json writes one: the bytes of
// json.Marshal(s), with <, > and & escaped and invalid UTF-8 replaced. Printable ASCII that
// needs no escape, what ids and names in the log's metadata are, is copied as it is; any other
// string is left to encoding/json.
func AppendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			quoted, _ := json.Marshal(s) // a string always encodes
			return append(b, quoted...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
