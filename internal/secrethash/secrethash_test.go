package secrethash

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// cheap keeps the tests fast; the format and the check are the same at any cost.
var cheap = Params{Time: 1, Memory: 64, Threads: 1}

func TestHashVerifies(t *testing.T) {
	h, err := Hash("4321", cheap)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$"), h)
	require.NotContains(t, h, "4321")
	ok, err := Verify("4321", h)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = Verify("4322", h)
	require.NoError(t, err)
	require.False(t, ok)
}

func TestTwoHashesOfOneSecretDiffer(t *testing.T) {
	a, err := Hash("4321", cheap)
	require.NoError(t, err)
	b, err := Hash("4321", cheap)
	require.NoError(t, err)
	require.NotEqual(t, a, b, "each hash has its own salt")
}

// TestVerifyReadsTheCostsFromTheHash: a hash made under other costs still verifies, as those
// stored before Default changes must.
func TestVerifyReadsTheCostsFromTheHash(t *testing.T) {
	h, err := Hash("s3cret", Params{Time: 3, Memory: 128, Threads: 2})
	require.NoError(t, err)
	ok, err := Verify("s3cret", h)
	require.NoError(t, err)
	require.True(t, ok)
}

func TestMalformedHashesAreErrorsNotMatches(t *testing.T) {
	good, err := Hash("x", cheap)
	require.NoError(t, err)
	parts := strings.Split(good, "$")
	for _, bad := range []string{
		"", "plain", "$argon2i$v=19$m=64,t=1,p=1$" + parts[4] + "$" + parts[5],
		"$argon2id$v=16$m=64,t=1,p=1$" + parts[4] + "$" + parts[5],
		"$argon2id$v=19$m=0,t=1,p=1$" + parts[4] + "$" + parts[5],
		"$argon2id$v=19$m=4194304,t=1,p=1$" + parts[4] + "$" + parts[5],
		"$argon2id$v=19$m=64,t=1,p=1$!!$" + parts[5],
		"$argon2id$v=19$m=64,t=1,p=1$" + parts[4] + "$",
	} {
		ok, err := Verify("x", bad)
		require.ErrorIs(t, err, ErrMalformed, bad)
		require.False(t, ok)
	}
}

// TestReadsTheReferenceImplementationsHashes checks a hash the reference argon2 command line
// (the phc-winner-argon2 project's, as Debian ships it) made:
//
//	echo -n 4321 | argon2 somesaltsomesalt -id -t 2 -m 10 -p 1 -e
//
// so that the format is the standard's, not only this package's reading of its own writing.
func TestReadsTheReferenceImplementationsHashes(t *testing.T) {
	const reference = "$argon2id$v=19$m=1024,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$wzae9bbfbKJ1aK4CZgRRrAGzMlfed1FoINXsbVcrPeg"
	ok, err := Verify("4321", reference)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = Verify("1234", reference)
	require.NoError(t, err)
	require.False(t, ok)
}
