//go:build faults

package faults

import (
	"context"
	"fmt"
	"os"
	"testing"

	"library/internal/testkit/pgtest"
	"library/internal/testkit/proctest"
)

// cluster is the suite's own PostgreSQL server, which the restart test stops and starts. It is
// set once, by TestMain, before any test runs.
var cluster *pgtest.Cluster

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "library-faults-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if err := proctest.Build(dir, "../cmd/library"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if cluster, err = pgtest.StartCluster(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		return 1
	}
	defer cluster.Stop()
	return pgtest.Run(m)
}
