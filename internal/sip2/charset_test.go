package sip2

import (
	"bytes"
	"testing"
)

var cp850 = Framing{Charset: "cp850"}

// A name with é and ü sent in IBM850 (é is 0x82, ü is 0x81) reads as UTF-8, its checksum summed
// over the bytes as sent, and is written back as those bytes.
func TestCP850(t *testing.T) {
	body := []byte("24              00120260314    093000AOlib|AAp1|AEJos\x82 M\x81ller|AY1AZ")
	wire := append(body, Checksum(body)...)
	r := NewReader(bytes.NewReader(append(wire, '\r')), cp850)
	m, err := r.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	if m.Value("AE") != "José Müller" || m.Seq != 1 {
		t.Fatalf("%+v", m)
	}
	var out bytes.Buffer
	if err := NewWriter(&out, cp850).Write(m); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), append(wire, '\r')) {
		t.Fatalf("written as %q, want %q", out.Bytes(), wire)
	}
	// The text a Reader hands out checks against the bytes as sent with Framing.Parse; Parse alone
	// would sum the UTF-8 bytes, which were not sent.
	text, err := NewReader(bytes.NewReader(append(wire, '\r')), cp850).Read()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cp850.Parse(text); err != nil {
		t.Fatal(err)
	}
	_, err = Parse(text)
	wantKind(t, err, KindChecksum)
}

// Every byte of code page 850 is a character that encodes back to that byte.
func TestCP850EveryByte(t *testing.T) {
	cs, _ := cp850.charset()
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	text, err := cs.decode(all)
	if err != nil {
		t.Fatal(err)
	}
	back, err := cs.encode(text)
	if err != nil || !bytes.Equal(back, all) {
		t.Fatalf("%v: %q", err, back)
	}
}

// A character code page 850 lacks is refused, not replaced.
func TestCP850Unencodable(t *testing.T) {
	m := Message{Code: "94", Fixed: []string{"1"}}.Add("AF", "€ 5")
	var out bytes.Buffer
	err := NewWriter(&out, cp850).Write(m)
	wantKind(t, err, KindCharset)
	if out.Len() != 0 {
		t.Fatalf("wrote %q", out.Bytes())
	}
	_, err = cp850.Parse([]byte("9300CN€|"))
	wantKind(t, err, KindCharset)
}

// UTF-8 passes through both ways; invalid UTF-8 is an error, and the Reader goes on.
func TestUTF8(t *testing.T) {
	m := Message{Code: "94", Fixed: []string{"1"}, HasSeq: true, Seq: 3}.Add("AF", "Grüße, 東京")
	var out bytes.Buffer
	if err := NewWriter(&out, Framing{}).Write(m); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), []byte("Grüße, 東京")) {
		t.Fatalf("%q", out.Bytes())
	}
	r := NewReader(bytes.NewReader(append([]byte("9300CN\xff\xfe|\r"), out.Bytes()...)), Framing{Charset: "UTF-8"})
	_, err := r.Read()
	wantKind(t, err, KindCharset)
	back, err := r.ReadMessage()
	if err != nil || !sameMessage(back, m) {
		t.Fatalf("%+v, %v", back, err)
	}
}

func TestFramingCheck(t *testing.T) {
	for _, f := range []Framing{{}, {LineEnd: "\r\n", Charset: "IBM850", MaxLength: 10}, {LineEnd: "\n", Charset: "utf8"}} {
		if err := f.Check(); err != nil {
			t.Errorf("%+v: %v", f, err)
		}
	}
	for _, f := range []Framing{{LineEnd: "\n\r"}, {Charset: "latin1"}, {MaxLength: -1}} {
		if f.Check() == nil {
			t.Errorf("%+v passed", f)
		}
		if _, err := NewReader(bytes.NewReader([]byte("941\r")), f).Read(); err == nil {
			t.Errorf("%+v: Read passed", f)
		}
		if err := NewWriter(&bytes.Buffer{}, f).Write(Message{Code: "94", Fixed: []string{"1"}}); err == nil {
			t.Errorf("%+v: Write passed", f)
		}
	}
}
