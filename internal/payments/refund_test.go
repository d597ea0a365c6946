package payments_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"library/internal/payments"
)

// A refund key names the checkout and what it had given back before it, and reads back.
func TestRefundKeysAfter(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "library-refund-co_1", payments.RefundKeyAfter("co_1", 0))
	assert.Equal(t, "library-refund-co_1-after-300", payments.RefundKeyAfter("co_1", 300))
	for key, want := range map[string]int64{"library-refund-co_1": 0, "library-refund-co_1-after-300": 300} {
		got, ok := payments.RefundedBefore("co_1", key)
		assert.True(t, ok, key)
		assert.Equal(t, want, got, key)
	}
	for _, key := range []string{"library-refund-co_2", "library-refund-co_1-after-0", "library-refund-co_1-after-03",
		"library-refund-co_1-after-", "library-refund-co_1x", "refund-co_1"} {
		_, ok := payments.RefundedBefore("co_1", key)
		assert.False(t, ok, key)
	}
}
