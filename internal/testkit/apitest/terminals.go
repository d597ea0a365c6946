package apitest

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/app/admincli"
)

// AddTerminal adds a kiosk terminal to the database of cfg as an operator does, with
// `library sip terminals add NAME`, and returns the password it printed.
func AddTerminal(t testing.TB, cfg app.Config, name string) string {
	t.Helper()
	if cfg.PIIKey == "" {
		cfg.PIIKey = PIIKey
	}
	var out bytes.Buffer
	require.NoError(t, admincli.SIPTerminals(context.Background(), cfg, ServiceLogger(t, cfg), []string{"add", name}, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
