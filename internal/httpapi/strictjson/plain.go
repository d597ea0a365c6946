package strictjson

import (
	"encoding/json"
	"reflect"
)

// decodePlainly decodes a body the strict decoder would take, with encoding/json's Unmarshal,
// without the strict decoder's work (a json.Decoder, its buffer, and a second pass over the
// members with Token, each an allocation or several on every command). It reports false, with
// dst as it was, for any other body: the strict decoder then decodes it, and says what is wrong.
//
// It decodes when dst is a zero value, the body's members are fields of dst, each named once
// and spelled exactly, without escapes, the fields are plain (see Fields) and Unmarshal
// takes the body: then it is one valid JSON object and nothing after it, with no unknown field,
// no field named in another case and none twice, which is all the strict decoder asks, and
// Unmarshal decodes it just as the strict decoder does.
func decodePlainly(body []byte, dst any, fields Fields) bool {
	v := reflect.ValueOf(dst)
	if !fields.plain || v.Kind() != reflect.Pointer || v.IsNil() || !v.Elem().IsZero() || !plainMembers(body, fields.names) {
		return false
	}
	if err := json.Unmarshal(body, dst); err != nil {
		v.Elem().SetZero() // as it was, for the strict decoder
		return false
	}
	return true
}

// plainMembers reports whether body is a JSON object whose members are among names, each once,
// each named without escapes, each with a value that is a string or a single token (a number,
// true, false or null). It does not check that body is valid JSON: Unmarshal does. It only
// reads, as far as it can, the names of the members of an object; on anything it does not
// expect it answers false.
func plainMembers(body []byte, names map[string]int) bool {
	var seen uint64 // the places of the names given so far
	i := skipSpace(body, 0)
	if i == len(body) || body[i] != '{' {
		return false
	}
	i = skipSpace(body, i+1)
	if i < len(body) && body[i] == '}' {
		return true
	}
	for i < len(body) && body[i] == '"' {
		end := i + 1
		for end < len(body) && body[end] != '"' && body[end] != '\\' {
			end++
		}
		if end == len(body) || body[end] == '\\' {
			return false
		}
		place, ok := names[string(body[i+1:end])]
		if !ok || place >= 64 || seen&(1<<place) != 0 {
			return false
		}
		seen |= 1 << place
		i = skipSpace(body, end+1)
		if i == len(body) || body[i] != ':' {
			return false
		}
		if i = skipScalar(body, skipSpace(body, i+1)); i < 0 {
			return false
		}
		i = skipSpace(body, i)
		if i == len(body) {
			return false
		}
		switch body[i] {
		case '}':
			return true
		case ',':
			i = skipSpace(body, i+1)
		default:
			return false
		}
	}
	return false
}

// skipSpace returns the place of the first byte at or after i that is not JSON's white space.
func skipSpace(body []byte, i int) int {
	for i < len(body) {
		switch body[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipScalar returns the place after the string or the token that starts at i, or -1 when
// none does (an object, an array, or the end of the body).
func skipScalar(body []byte, i int) int {
	if i >= len(body) {
		return -1
	}
	switch body[i] {
	case '"':
		for i++; i < len(body); i++ {
			switch body[i] {
			case '\\':
				i++ // the escaped byte is not the string's end
			case '"':
				return i + 1
			}
		}
		return -1
	case '{', '[', ',', '}', ']', ':':
		return -1
	}
	for i < len(body) {
		switch body[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}
