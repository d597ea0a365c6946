package sip2

import (
	"slices"
	"strings"
	"testing"
)

// The table names each message the package promises, each once, with ids of the protocol's shape.
func TestTableCoversTheProtocol(t *testing.T) {
	want := []string{"01", "09", "10", "11", "12", "15", "16", "17", "18", "19", "20", "23", "24", "25", "26",
		"29", "30", "35", "36", "37", "38", "63", "64", "65", "66", "93", "94", "96", "97", "98", "99"}
	var got []string
	for _, s := range Specs() {
		got = append(got, s.Code)
		names := map[string]bool{}
		for _, f := range s.Fixed {
			if f.Len <= 0 || names[f.Name] {
				t.Errorf("%s: fixed field %q of length %d", s.Code, f.Name, f.Len)
			}
			names[f.Name] = true
		}
		ids := append(slices.Clone(s.Required), s.Optional...)
		for i, id := range ids {
			if !validID(id) || slices.Contains(ids[i+1:], id) {
				t.Errorf("%s: field id %q is malformed or named twice", s.Code, id)
			}
		}
		if s.Response != (s.Code[1]%2 == 0 && s.Code != "96") && s.Code != "96" && s.Code != "97" {
			t.Errorf("%s: Response is %v", s.Code, s.Response)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("codes %v, want %v", got, want)
	}
}

// The lengths of the fixed parts, as the specification's message layouts add up.
func TestFixedLengths(t *testing.T) {
	for code, n := range map[string]int{"09": 37, "10": 22, "11": 38, "12": 22, "15": 19, "16": 20, "17": 18,
		"18": 24, "23": 21, "24": 35, "29": 38, "35": 18, "36": 19, "37": 25, "38": 19, "63": 31, "64": 59,
		"65": 18, "66": 27, "93": 2, "94": 1, "96": 0, "97": 0, "98": 34, "99": 8} {
		s, _ := Lookup(code)
		if s.Length() != n {
			t.Errorf("%s: fixed part of %d characters, want %d", code, s.Length(), n)
		}
	}
}

// Every message of the table, with every field it names and a repeated one, comes back from
// Encode then Parse as it was: with and without error detection, and with AZ alone.
func TestEveryMessageRoundTrips(t *testing.T) {
	for _, s := range Specs() {
		for _, m := range []Message{sample(s, -1), sample(s, 7), {Code: s.Code, Fixed: sample(s, -1).Fixed, ChecksumOnly: true}} {
			b, err := m.Encode()
			if err != nil {
				t.Fatalf("%s: Encode: %v", s.Code, err)
			}
			back, err := Parse(b)
			if err != nil {
				t.Fatalf("%s: Parse(%q): %v", s.Code, b, err)
			}
			if !sameMessage(m, back) {
				t.Fatalf("%s: %q reads back as %+v, want %+v", s.Code, b, back, m)
			}
		}
	}
}

// Encode holds a message to the table: fixed fields counted and measured, ids and values checked.
func TestEncodeEnforcesTheTable(t *testing.T) {
	date := FormatDate(mustDate(t, "20260314    093000"))
	good := Message{Code: "11", Fixed: []string{"Y", "N", date, BlankDate}}.Add("AO", "lib").Add("AA", "p")
	if _, err := good.Encode(); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		m    Message
		kind Kind
	}{
		"unknown code":         {Message{Code: "42"}, KindUnknownCode},
		"too few fixed":        {Message{Code: "11", Fixed: []string{"Y", "N", date}}, KindMalformed},
		"too many fixed":       {Message{Code: "94", Fixed: []string{"1", "2"}}, KindMalformed},
		"short fixed":          {Message{Code: "11", Fixed: []string{"Y", "N", date[:17], BlankDate}}, KindMalformed},
		"long fixed":           {Message{Code: "94", Fixed: []string{"YY"}}, KindMalformed},
		"pipe in fixed":        {Message{Code: "94", Fixed: []string{"|"}}, KindMalformed},
		"pipe in value":        {good.Add("AF", "a|b"), KindMalformed},
		"CR in value":          {good.Add("AF", "a\rb"), KindMalformed},
		"one-letter id":        {good.Add("A", "x"), KindMalformed},
		"lowercase id":         {good.Add("af", "x"), KindMalformed},
		"AY as a field":        {good.Add("AY", "1"), KindMalformed},
		"AZ as a field":        {good.Add("AZ", "FFFF"), KindMalformed},
		"sequence 10":          {Message{Code: "94", Fixed: []string{"1"}, HasSeq: true, Seq: 10}, KindMalformed},
		"invalid UTF-8":        {good.Add("AF", "\xff"), KindCharset},
		"fixed ends like AZ":   {Message{Code: "99", Fixed: []string{"0", "0AZ", "1234"}}, KindMalformed},
		"fixed ends like AYn":  {Message{Code: "99", Fixed: []string{"0", "000", "0AY1"}, ChecksumOnly: true}, KindMalformed},
		"sequence -1 with seq": {Message{Code: "94", Fixed: []string{"1"}, HasSeq: true, Seq: -1}, KindMalformed},
	}
	for name, c := range cases {
		_, err := c.m.Encode()
		if err == nil {
			t.Errorf("%s: encoded", name)
			continue
		}
		if KindOf(err) != c.kind {
			t.Errorf("%s: %v, want kind %s", name, err, c.kind)
		}
	}
}

// A fixed field's length is in characters, not bytes.
func TestFixedLengthCountsCharacters(t *testing.T) {
	m := Message{Code: "23", Fixed: []string{"é01", "20260314    093000"}}.Add("AO", "x").Add("AA", "y").Add("AC", "").Add("AD", "")
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if back := mustParse(t, string(b)); back.FixedField(Language) != "é01" {
		t.Fatalf("language %q", back.FixedField(Language))
	}
}

// Lookup hands out a copy: changing it changes nothing for the next caller.
func TestLookupIsACopy(t *testing.T) {
	s, _ := Lookup("11")
	s.Fixed[0].Len = 99
	s.Required[0] = "XX"
	again, _ := Lookup("11")
	if again.Fixed[0].Len != 1 || again.Required[0] != "AO" {
		t.Fatal("the table changed")
	}
	if _, ok := Lookup("00"); ok {
		t.Fatal("Lookup(00) found a message")
	}
	if !strings.Contains(again.Name, "Checkout") {
		t.Fatal(again.Name)
	}
}
