package sip2

import (
	"errors"
	"slices"
	"testing"
)

// withSum appends AY, the sequence digit, AZ and the right checksum.
func withSum(body string, seq byte) string {
	s := body + "AY" + string(seq) + "AZ"
	return s + Checksum([]byte(s))
}

func TestParseRefuses(t *testing.T) {
	login := "9300CNuser|COpass|"
	cases := map[string]struct {
		line string
		kind Kind
	}{
		"wrong checksum":             {withSum(login, '1')[:len(withSum(login, '1'))-1] + "0", KindChecksum},
		"checksum not hex":           {login + "AY1AZ12G4", KindChecksum},
		"checksum of other bytes":    {"9300CNuser|COpasS|" + withSum(login, '1')[len(login):], KindChecksum},
		"unknown code":               {withSum("42YY|", '1'), KindUnknownCode},
		"unknown code, no checksum":  {"00", KindUnknownCode},
		"empty":                      {"", KindMalformed},
		"one character":              {"9", KindMalformed},
		"fixed fields missing":       {"93", KindMalformed},
		"fixed fields short":         {"11YN20260314    093000", KindMalformed},
		"fixed short, runs into |":   {"6520260314    0930AOlib|AApatron|", KindMalformed},
		"field id lowercase":         {"9300cnuser|", KindMalformed},
		"field id starts with digit": {"9300CNuser|1Ax|", KindMalformed},
		"one-character field":        {"9300CNuser|C|", KindMalformed},
		"AY in the middle":           {"9300AY1|CNuser|", KindMalformed},
		"AY without AZ":              {"9300CNuser|AY1", KindMalformed},
		"sequence not a digit":       {withSum(login, 'x'), KindMalformed},
		"CR inside":                  {"9300CNus\rer|", KindMalformed},
		"LF inside":                  {"9300CNus\ner|", KindMalformed},
		"invalid UTF-8":              {"9300CN\xffuser|", KindCharset},
		"fixed ends like a checksum": {"9900AZ1234|", KindMalformed},
	}
	for name, c := range cases {
		_, err := Parse([]byte(c.line))
		if err == nil {
			t.Errorf("%s: Parse(%q) accepted it", name, c.line)
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Kind != c.kind {
			t.Errorf("%s: Parse(%q) = %v, want kind %s", name, c.line, err, c.kind)
		}
	}
}

// Parse is lenient where kiosks differ and nothing is ambiguous.
func TestParseTolerates(t *testing.T) {
	want := Message{Code: "93", Fixed: []string{"0", "0"}, Fields: []Field{{"CN", "user"}, {"CO", "pass"}}}
	for _, line := range []string{
		"9300CNuser|COpass|",
		"9300CNuser|COpass",   // the last "|" missing
		"9300CNuser||COpass|", // a stray empty field
		"9300|CNuser|COpass|",
	} {
		if m := mustParse(t, line); !sameMessage(m, want) {
			t.Errorf("Parse(%q) = %+v", line, m)
		}
	}
	m := mustParse(t, withSum("9300CNuser|COpass", '4')) // no "|" before AY
	if !m.HasSeq || m.Seq != 4 || m.Value("CO") != "pass" {
		t.Errorf("%+v", m)
	}
	lower := withSum(login(), '2')
	lower = lower[:len(lower)-4] + toLower(lower[len(lower)-4:])
	if m := mustParse(t, lower); m.Seq != 2 {
		t.Errorf("lowercase checksum: %+v", m)
	}
	m = mustParse(t, "9300CNuser|XYvendor|U1|")
	if m.Value("XY") != "vendor" || !slices.Equal(m.Missing(), []string{"CO"}) {
		t.Errorf("%+v missing %v", m, m.Missing())
	}
	if v, ok := m.Field("U1"); !ok || v != "" {
		t.Errorf("empty field U1: %q %v", v, ok)
	}
}

func login() string { return "9300CNuser|COpass|" }

func toLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func TestAccessors(t *testing.T) {
	m := mustParse(t, "64              00020260314    093000000100020000000000000000AOlib|AAp1|AEAnn|AUb1|AUb2|AUb3|")
	if got := m.All("AU"); !slices.Equal(got, []string{"b1", "b2", "b3"}) {
		t.Errorf("All(AU) = %q", got)
	}
	if m.Value("AU") != "b1" || m.Value("AF") != "" || m.All("AF") != nil {
		t.Error("first value or absent field")
	}
	if _, ok := m.Field("AF"); ok {
		t.Error("Field(AF) found")
	}
	if m.FixedField("hold items count") != "0001" || m.FixedField("charged items count") != "0000" ||
		m.FixedField("overdue items count") != "0002" || m.FixedField("no such") != "" {
		t.Errorf("fixed %q", m.Fixed)
	}
	if (Message{Code: "XX"}).FixedField(TransactionDate) != "" || (Message{Code: "11"}).FixedField(NoBlock) != "" {
		t.Error("FixedField of an incomplete message")
	}
	if len(m.Missing()) != 0 {
		t.Errorf("missing %v", m.Missing())
	}
	// Add leaves the message it was called on as it was.
	base := Message{Code: "94", Fixed: []string{"1"}}.Add("AF", "a")
	one, two := base.Add("AG", "x"), base.Add("AG", "y")
	if one.Value("AG") != "x" || two.Value("AG") != "y" || len(base.Fields) != 1 {
		t.Error("Add shares its fields")
	}
}

func TestChecksum(t *testing.T) {
	// Published pairs: Koha's REQUEST_ACS_RESEND_CKSUM, FOLIO's login (see testdata/published.txt).
	for body, want := range map[string]string{"97AZ": "FEF5", "9300CNuser_id|COpassw0rd|AY1AZ": "F594", "": "0000"} {
		if got := Checksum([]byte(body)); got != want {
			t.Errorf("Checksum(%q) = %s, want %s", body, got, want)
		}
	}
	// The sum wraps at 16 bits: 258 bytes of 0xFF sum to 0x100FE, kept 0x00FE, negated 0xFF02.
	big := make([]byte, 258)
	for i := range big {
		big[i] = 0xFF
	}
	if got := Checksum(big); got != "FF02" {
		t.Errorf("Checksum of 258 x FF = %s", got)
	}
}

func TestErrorText(t *testing.T) {
	_, err := Parse([]byte("42"))
	if err == nil || err.Error() != `sip2: unknown code message "42": no such command identifier` {
		t.Errorf("%v", err)
	}
	if KindOf(errors.New("other")) != 0 || Kind(42).String() != "Kind(42)" {
		t.Error("KindOf or String of something else")
	}
	_, err = Message{Code: "42"}.Encode()
	if KindOf(err) != KindUnknownCode || err.Error() == "" {
		t.Errorf("%v", err)
	}
}
