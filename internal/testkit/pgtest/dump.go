package pgtest

import (
	"errors"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
)

// Dump returns pg_dump's plain SQL dump of the whole database at url: schema and every row,
// for a test that looks for data that must not be there. pg_dump comes with the server
// binaries (on PATH, or in /usr/lib/postgresql/*/bin).
func Dump(t testing.TB, url string) string {
	t.Helper()
	// The server's own pg_dump first: Debian's /usr/bin/pg_dump is a wrapper that wants a
	// cluster of its own configured.
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_dump")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(filepath.Dir(dirs[i])) > versionOf(filepath.Dir(dirs[j])) })
	pgDump := ""
	if len(dirs) > 0 {
		pgDump = dirs[0]
	} else if found, err := exec.LookPath("pg_dump"); err == nil {
		pgDump = found
	} else {
		t.Fatal("pg_dump not found: it comes with the PostgreSQL binaries (apt-get install postgresql)")
	}
	out, err := exec.Command(pgDump, "--no-owner", "--dbname", url).Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("pg_dump: %v: %s", err, exit.Stderr)
		}
		t.Fatalf("pg_dump: %v", err)
	}
	return string(out)
}
