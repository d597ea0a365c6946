package isbn_test

import (
	"errors"
	"strings"
	"testing"

	"library/internal/errs"
	"library/internal/isbn"
)

// FuzzParse checks, for any string, that Parse never panics; that what it accepts comes back as
// 13 digits with a right ISBN-13 check digit (worked out here apart from the package), which
// Parse reads again as itself, written bare or with separators; that an accepted ISBN-10 is the
// ISBN-10 of what it returns (Ten); and that a refusal is InvalidRequest with one of a few
// fixed details, so that it never depends on, or echoes, the value. `go test` runs the seeds.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"0-441-01359-7", "978-0-441-01359-3", "0-590-35342-X", "059035342x", "979-10-90636-07-1",
		"0 262 51087 1", "0-441-01359-8", "978-0-441-01359-4", "0-441-0135X-7", "4006381333931",
		"", "-", "X", "ISBN 0441013597", "97804410135930", "９７８", "\xff\xfe", strings.Repeat("- ", 20),
	} {
		f.Add(seed)
	}
	details := map[string]bool{}
	f.Fuzz(func(t *testing.T, written string) {
		got, err := isbn.Parse("isbn", written)
		if err != nil {
			var e *errs.Error
			if !errors.As(err, &e) || e.Code != errs.InvalidRequest {
				t.Fatalf("Parse(%q): %v, want an InvalidRequest", written, err)
			}
			details[e.Detail] = true
			if len(details) > 3 {
				t.Fatalf("Parse's refusals have %d details, want a few fixed ones: %v", len(details), details)
			}
			return
		}
		if len(got) != 13 || strings.Trim(got, "0123456789") != "" || !checkDigitMatches(got) {
			t.Fatalf("Parse(%q) = %q: not 13 digits with a right check digit", written, got)
		}
		if got[:3] != "978" && got[:3] != "979" {
			t.Fatalf("Parse(%q) = %q: not an ISBN's prefix", written, got)
		}
		for _, again := range []string{got, strings.Join(strings.Split(got, ""), "-"), " " + got + " "} {
			if back, err := isbn.Parse("isbn", again); err != nil || back != got {
				t.Fatalf("Parse(%q) = %q, %v; want %q back", again, back, err, got)
			}
		}
		bare := strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(written))
		switch len(bare) {
		case 13:
			if bare != got {
				t.Fatalf("Parse(%q) = %q, want its digits %q", written, got, bare)
			}
		case 10:
			if ten, ok := isbn.Ten(got); !ok || ten != bare {
				t.Fatalf("Parse(%q) = %q, whose ISBN-10 is %q (%v), want %q", written, got, ten, ok, bare)
			}
		default:
			t.Fatalf("Parse(%q) = %q from %d characters that are not separators", written, got, len(bare))
		}
	})
}

// checkDigitMatches reports whether the 13 digits' sum, weighted 1, 3, 1, 3..., is a multiple
// of 10 (ISO 2108).
func checkDigitMatches(digits string) bool {
	sum := 0
	for i, c := range digits {
		weight := 1
		if i%2 == 1 {
			weight = 3
		}
		sum += weight * int(c-'0')
	}
	return sum%10 == 0
}
