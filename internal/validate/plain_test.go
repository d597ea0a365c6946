package validate

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// plainText, which reads ASCII a byte at a time, says what a look at every rune says.
func TestPlainTextIsALookAtEveryRune(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(rapid.StringMatching(`[ -~]*`), rapid.String(),
			rapid.StringOf(rapid.SampledFrom([]rune{'a', ' ', '\t', 0x7f, 'é', 0x2028, 0x200b, 0xfffd}))).Draw(t, "s")
		s += string(rapid.SliceOf(rapid.Byte()).Draw(t, "tail")) // invalid UTF-8 too
		if got, want := plainText(s), strings.IndexFunc(s, notPlainText) < 0; got != want {
			t.Fatalf("plainText(%q) = %v, a look at every rune %v", s, got, want)
		}
	})
}
