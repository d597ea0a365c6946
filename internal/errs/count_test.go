package errs

import "testing"

func TestCountAgreesWithTheNumber(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int64
		want string
	}{
		{1, "1 member waits"},
		{-1, "-1 member waits"},
		{0, "0 members wait"},
		{2, "2 members wait"},
		{-300, "-300 members wait"},
	} {
		if got := Count(c.n, "member waits", "members wait"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
