package catalogimport

import (
	"testing"

	"pgregory.net/rapid"
)

// clean, which leaves a line of printable ASCII as it is, makes of every text what a look at
// every rune makes of it.
func TestCleanIsALookAtEveryRune(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(rapid.StringMatching(`[ -~]*`), rapid.String(),
			rapid.StringOf(rapid.SampledFrom([]rune{'a', ' ', '\t', '\n', 0x7f, 0xa0, 'é', 0x2028, 0x200b}))).Draw(t, "s")
		if got, want := clean(s), cleanRunes(s); got != want {
			t.Fatalf("clean(%q) = %q, want %q", s, got, want)
		}
	})
}
