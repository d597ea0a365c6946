package calendar

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePeriod(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Period{
		"21d": {Days: 21}, "1d": {Days: 1}, "4h": {Exact: 4 * time.Hour}, "90s": {Exact: 90 * time.Second}, "336h": {Exact: 336 * time.Hour},
	} {
		got, err := ParsePeriod(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
		again, err := ParsePeriod(got.String())
		require.NoError(t, err)
		assert.Equal(t, got, again, "written as read")
	}
	for _, bad := range []string{"", "0d", "-1d", "d", "1.5d", "021d", "0s", "-4h", "soon", "3661d", "100000h"} {
		_, err := ParsePeriod(bad)
		assert.Error(t, err, bad)
	}
}
