//go:build upgrade

package upgrade

import (
	"fmt"
	"os"
	"testing"

	"library/internal/testkit/pgtest"
	"library/internal/testkit/proctest"
)

// release is the commit of the release before this one: the last that landed before titles
// and copies, whose log this build must read as it is.
const release = "df6083eb816176961927ac6629416e7839160297"

// before is the binary built at release.
var before string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "library-upgrade-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	// The release first: a clone that lacks it and can't fetch it fails at once, saying so.
	if before, err = proctest.BuildRelease(dir, release); err != nil {
		fmt.Fprintln(os.Stderr, "upgrade:", err)
		return 1
	}
	if err := proctest.Build(dir, "../cmd/library"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return pgtest.Run(m)
}
