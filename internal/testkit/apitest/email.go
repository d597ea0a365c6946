package apitest

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// messageIDPattern is a loan email's Message-ID: the event's position, the time it was
// recorded, the installation, at MAIL_FROM's domain.
var messageIDPattern = regexp.MustCompile(`^<notifications\.([0-9]+)\.[0-9a-z]+\.[0-9A-Za-z-]+@([^>]+)>$`)

// RequireMessageID checks that id is the Message-ID of the loan email for the event at
// position, at domain.
func RequireMessageID(t *testing.T, id string, position int64, domain string) {
	t.Helper()
	m := messageIDPattern.FindStringSubmatch(id)
	require.NotNil(t, m, "Message-ID %q", id)
	require.Equal(t, strconv.FormatInt(position, 10), m[1], "the position in %s", id)
	require.Equal(t, domain, m[2], "the domain of %s", id)
}

// EmailPosition is the position of the event a loan email's Message-ID names.
func EmailPosition(t *testing.T, id string) int64 {
	t.Helper()
	m := messageIDPattern.FindStringSubmatch(id)
	require.NotNil(t, m, "Message-ID %q", id)
	p, err := strconv.ParseInt(m[1], 10, 64)
	require.NoError(t, err)
	return p
}
