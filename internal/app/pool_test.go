package app

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The service's sessions end themselves when left idle in a transaction (a replica cut off
// mid-transaction would otherwise hold row locks and every processor's read horizon until TCP
// notices), unless DATABASE_URL says otherwise; and a connection attempt gives up in time.
func TestPoolConfigEndsSessionsLeftInATransaction(t *testing.T) {
	t.Parallel()
	cfg, err := parsePoolConfig("postgres://library@db.example.org/library")
	require.NoError(t, err)
	require.Equal(t, "10000", cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"])
	require.Equal(t, DefaultIdleInTransaction.Milliseconds(), int64(10000))
	require.NotZero(t, cfg.ConnConfig.ConnectTimeout)
	require.Equal(t, "off", cfg.ConnConfig.RuntimeParams["jit"], "short statements, compiled for nothing")

	cfg, err = parsePoolConfig("postgres://library@db.example.org/library?idle_in_transaction_session_timeout=60000")
	require.NoError(t, err)
	require.Equal(t, "60000", cfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"], "the URL's own setting wins")

	cfg, err = parsePoolConfig("postgres://library@db.example.org/library?jit=on")
	require.NoError(t, err)
	require.Equal(t, "on", cfg.ConnConfig.RuntimeParams["jit"], "the URL's own setting wins")
}
