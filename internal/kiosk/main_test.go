package kiosk_test

import (
	"testing"

	"library/internal/testkit/pgtest"
)

// TestMain gives the kiosk's tests a real PostgreSQL (see pgtest).
func TestMain(m *testing.M) { pgtest.Main(m) }
