package sip2

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

type published struct {
	want, line string
}

func readPublished(t testing.TB) []published {
	t.Helper()
	f, err := os.Open("testdata/published.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var out []published
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		want, msg, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("testdata/published.txt: no tab in %q", line)
		}
		out = append(out, published{want, msg})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Messages as others publish them: the right checksums are accepted, the wrong refused, and what
// is accepted is written back byte for byte, so our checksum is theirs.
func TestPublishedMessages(t *testing.T) {
	examples := readPublished(t)
	if len(examples) < 30 {
		t.Fatalf("only %d examples", len(examples))
	}
	for _, ex := range examples {
		m, err := Parse([]byte(ex.line))
		switch ex.want {
		case "ok", "ok-canonical":
			if err != nil {
				t.Errorf("Parse(%q): %v", ex.line, err)
				continue
			}
			b, err := m.Encode()
			if err != nil {
				t.Errorf("Encode(%q): %v", ex.line, err)
				continue
			}
			if ex.want == "ok" && string(b) != ex.line {
				t.Errorf("%q is written back as %q", ex.line, b)
			}
			if back := mustParse(t, string(b)); !sameMessage(m, back) {
				t.Errorf("%q reads back as %+v", b, back)
			}
		case "checksum":
			wantKind(t, err, KindChecksum)
		case "malformed":
			wantKind(t, err, KindMalformed)
		default:
			t.Fatalf("unknown expectation %q", ex.want)
		}
	}
}

// What the published messages say, read through the table.
func TestPublishedMessagesReadRight(t *testing.T) {
	m := mustParse(t, "1808000119980723    115615CF00000|ABItemBook|AJTitle For Item Book|CK003|AQPermanent Location for ItemBook, Language 1|APCurrent Location ItemBook|CHFree-form text with new item property|AY0AZC05B")
	if m.FixedField("circulation status") != "08" || m.FixedField("security marker") != "00" ||
		m.FixedField("fee type") != "01" || m.FixedField(TransactionDate) != "19980723    115615" {
		t.Errorf("fixed fields %q", m.Fixed)
	}
	if m.Value("AJ") != "Title For Item Book" || m.Value("CK") != "003" || !m.HasSeq || m.Seq != 0 {
		t.Errorf("%+v", m)
	}
	m = mustParse(t, "36Y19980723    110658AOInstitutionID for PatronID|AAPatronID|AFScreenMessage 0 for PatronID, Language 1|AFScreen Message 1 for PatronID, Language 1|AFScreen Message 2 for PatronID, Language 1|AGPrint Line 0 for PatronID, Language 1|AGPrint Line 1 for PatronID, Language 1|AGPrint Line 2 for PatronID, language 1|AY5AZ970F")
	if got := m.All("AF"); len(got) != 3 || got[2] != "Screen Message 2 for PatronID, Language 1" {
		t.Errorf("AF %q", got)
	}
	if m.Seq != 5 || m.FixedField("end session") != "Y" {
		t.Errorf("%+v", m)
	}
	m = mustParse(t, "6300119980723    091905Y         AOInstitutionID|AAPatronID|BP00001|BQ00005|AY1AZEA83")
	if m.FixedField("summary") != "Y         " || m.FixedField(Language) != "001" || m.Value("BQ") != "00005" {
		t.Errorf("%+v", m)
	}
	m = mustParse(t, "97AZFEF5")
	if !m.ChecksumOnly || m.HasSeq || len(m.Fixed) != 0 || len(m.Fields) != 0 {
		t.Errorf("%+v", m)
	}
	m = mustParse(t, "98YYYYYY60000320190614    0015442.00AONHKS|AMExample|BXYYYYYYYYNYYNNYYY|ANWeb|AFThis is a long status message which does not include a checksum.|")
	if m.HasSeq || m.ChecksumOnly || len(m.Value("BX")) != 16 || m.FixedField("protocol version") != "2.00" ||
		m.FixedField("date / time sync") != "20190614    001544" || m.FixedField("timeout period") != "600" || m.FixedField("retries allowed") != "003" {
		t.Errorf("%+v", m)
	}
}
