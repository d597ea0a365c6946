package pgtest

import (
	"context"
	"fmt"
	"os"
)

// Cluster is a throwaway PostgreSQL server that a test binary owns, for tests that stop and
// start the server itself. Most tests need only Main and NewDatabase.
type Cluster struct{ c *cluster }

// StartCluster starts a throwaway cluster and points EnvURL at it, so that Run (called next,
// from TestMain) makes its databases there. Stop it when the tests end.
func StartCluster(ctx context.Context) (*Cluster, error) {
	c, err := startCluster(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w\n\n%s", err, howToGetPostgres)
	}
	if err := os.Setenv(EnvURL, c.url); err != nil {
		c.stop()
		return nil, err
	}
	return &Cluster{c: c}, nil
}

// Restart shuts the server down (a fast shutdown: every session ends, as in a failover or a
// restart for maintenance) and starts it again on the same port with the same data.
func (c *Cluster) Restart(ctx context.Context) error {
	c.c.shutDown()
	return c.Start(ctx)
}

// Down shuts the server down; Start brings it back.
func (c *Cluster) Down() { c.c.shutDown() }

// Start starts a server that is down and waits until it accepts connections.
func (c *Cluster) Start(ctx context.Context) error {
	if err := c.c.startProcess(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	return c.c.waitReady(ctx)
}

// Stop shuts the server down for good and removes its folder.
func (c *Cluster) Stop() { c.c.stop() }
