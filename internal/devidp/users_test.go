package devidp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDefaultUsers(t *testing.T) {
	t.Parallel()
	users := DefaultUsers()
	require.NoError(t, validateUsers(users, "library-web"))
	roles := map[string][]string{}
	for _, u := range users {
		roles[u.Username] = u.Roles
	}
	require.Equal(t, map[string][]string{"alice": {}, "libby": {"librarian"}, "oscar": {"operator"}}, roles)
	require.Equal(t, "alice@example.org", users[0].Email)
	require.True(t, users[0].EmailVerified)
}

func TestSampleUsersFileIsTheDefaultUsers(t *testing.T) {
	t.Parallel()
	users, err := LoadUsers(filepath.Join("..", "..", "cmd", "devidp", "users.json"))
	require.NoError(t, err)
	require.Equal(t, DefaultUsers(), users)
}

func TestLoadUsersRefusesMistakes(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"not json":         `{`,
		"unknown field":    `{"users":[{"id":"a","username":"a","password":"p","role":["x"]}]}`,
		"no users":         `{"users":[]}`,
		"no password":      `{"users":[{"id":"a","username":"a"}]}`,
		"duplicate id":     `{"users":[{"id":"a","username":"a","password":"p"},{"id":"a","username":"b","password":"p"}]}`,
		"duplicate name":   `{"users":[{"id":"a","username":"a","password":"p"},{"id":"b","username":"a","password":"p"}]}`,
		"trailing garbage": `{"users":[{"id":"a","username":"a","password":"p"}]} x`,
	} {
		path := filepath.Join(t.TempDir(), "users.json")
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		_, err := LoadUsers(path)
		require.Error(t, err, name)
	}
	_, err := LoadUsers(filepath.Join(t.TempDir(), "missing.json"))
	require.Error(t, err)
}
