// Package yaztest finds yaz-marcdump (Debian's yaz), the MARC reader the project's MARC files
// are checked against: a test without it fails when CI is set, and is skipped only when not.
package yaztest

import (
	"os"
	"os/exec"
	"testing"
)

// Path is yaz-marcdump's path.
func Path(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("yaz-marcdump")
	if err == nil {
		return path
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("yaz-marcdump is not installed (apt-get install yaz): CI checks MARC files against it and skips none")
	}
	t.Skip("yaz-marcdump is not installed (apt-get install yaz); CI runs this test")
	return ""
}
