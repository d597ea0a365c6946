package kiosk

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCents(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"2.50": 250, "3": 300, "0.5": 50, " 12.05 ": 1205, ".75": 75} {
		got, ok := cents(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", ".", "0", "0.00", "-1", "+1", "1.234", "1,50", "abc", "9999999"} {
		_, ok := cents(bad)
		assert.False(t, ok, bad)
	}
}

func TestAmount(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "2.50", amount(250))
	assert.Equal(t, "0.05", amount(5))
	assert.Equal(t, "-1.00", amount(-100))
	assert.Equal(t, "0.00", amount(0))
}

// A transaction's id is the same for the same parts, and differs when any part does, even when
// the parts' bytes, run together, are the same.
func TestTransactionID(t *testing.T) {
	t.Parallel()
	id := transactionID("kiosk-1", "11", "20261201    100000", "card", "book")
	assert.Equal(t, id, transactionID("kiosk-1", "11", "20261201    100000", "card", "book"))
	assert.Len(t, id, 30)
	assert.Regexp(t, `^sip-[a-z2-7]{26}$`, id)
	for _, other := range []string{
		transactionID("kiosk-2", "11", "20261201    100000", "card", "book"),
		transactionID("kiosk-1", "11", "20261201    100001", "card", "book"),
		transactionID("kiosk-1", "11", "20261201    100000", "car", "dbook"),
		transactionID("kiosk-1", "29", "20261201    100000", "card", "book"),
	} {
		assert.NotEqual(t, id, other)
	}
}
