package sip2

import (
	"slices"
	"strings"
	"testing"
)

// sameMessage says whether two messages are the same, an empty list and none being alike.
func sameMessage(a, b Message) bool {
	return a.Code == b.Code && slices.Equal(a.Fixed, b.Fixed) && slices.Equal(a.Fields, b.Fields) &&
		a.HasSeq == b.HasSeq && (!a.HasSeq || a.Seq == b.Seq) && a.ChecksumOnly == b.ChecksumOnly
}

// sample is a message of spec's shape: each fixed field filled to its length, each field the
// specification names given a value, and a repeated field when the message has one.
func sample(s Spec, seq int) Message {
	m := Message{Code: s.Code, Seq: seq, HasSeq: seq >= 0}
	for i, f := range s.Fixed {
		m.Fixed = append(m.Fixed, strings.Repeat(string(rune('0'+i%10)), f.Len))
	}
	for _, id := range append(slices.Clone(s.Required), s.Optional...) {
		m.Fields = append(m.Fields, Field{ID: id, Value: "v " + id})
	}
	if len(m.Fields) > 0 {
		m.Fields = append(m.Fields, Field{ID: m.Fields[0].ID, Value: "again"}, Field{ID: "ZZ", Value: ""})
	}
	return m
}

func mustParse(t *testing.T, line string) Message {
	t.Helper()
	m, err := Parse([]byte(line))
	if err != nil {
		t.Fatalf("Parse(%q): %v", line, err)
	}
	return m
}

func wantKind(t *testing.T, err error, kind Kind) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %s", kind)
	}
	if got := KindOf(err); got != kind {
		t.Fatalf("error %v is of kind %s, want %s", err, got, kind)
	}
}
