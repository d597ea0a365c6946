package notifications_test

import (
	"testing"

	"library/internal/notifications"
	"library/internal/testkit/acceptedtest"
)

func TestMemoryAcceptedEmails(t *testing.T) {
	t.Parallel()
	acceptedtest.Contract(t, notifications.NewMemoryAcceptedEmails())
}
