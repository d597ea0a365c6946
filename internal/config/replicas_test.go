package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/config"
)

// OPERATIONS_REPLICAS names the replicas the operations page may send tokens to: base URLs over
// https, or http on this machine, made canonical; anything else is refused, naming the variable,
// from the environment and from a Config made in code.
func TestOperationsReplicas(t *testing.T) {
	t.Parallel()
	read := func(value string) (config.Config, error) {
		return config.FromEnv(func(k string) string { return map[string]string{"OPERATIONS_REPLICAS": value}[k] })
	}
	cfg, err := read(" https://replica-2.library.example.org/, http://127.0.0.1:8081,http://localhost:9000/library/ ,http://[::1]:8082")
	require.NoError(t, err)
	assert.Equal(t, []string{"https://replica-2.library.example.org", "http://127.0.0.1:8081", "http://localhost:9000/library",
		"http://[::1]:8082"}, cfg.OperationsReplicas)
	cfg, err = read("")
	require.NoError(t, err)
	assert.Empty(t, cfg.OperationsReplicas)

	for _, bad := range []string{"http://replica-2.library.example.org", "replica-2.library.example.org", "ftp://127.0.0.1",
		"https://operator:secret@replica-2.example.org", "https://replica-2.example.org/?x=1", "https://replica-2.example.org/#f",
		"http://127.0.0.1.evil.example", "https://"} {
		_, err := read(bad)
		if assert.Error(t, err, bad) {
			assert.Contains(t, err.Error(), "OPERATIONS_REPLICAS", bad)
			assert.NotContains(t, err.Error(), "secret")
		}
		err = config.Config{OperationsReplicas: []string{bad}}.Check()
		if assert.Error(t, err, bad) {
			assert.Contains(t, err.Error(), "OPERATIONS_REPLICAS", bad)
		}
	}
}
