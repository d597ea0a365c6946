package stripepay

import (
	"testing"

	"library/internal/testkit/stripemock"
)

// The tests run against stripe-mock, Stripe's own mock of its API: it checks every request
// against Stripe's published OpenAPI document, so what passes here is what Stripe accepts.
func TestMain(m *testing.M) { stripemock.Main(m) }
