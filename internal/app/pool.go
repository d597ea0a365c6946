package app

import (
	"fmt"
	"library/internal/config"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// FromEnv reads the configuration from environment variables (config.FromEnv), and reads
// DATABASE_URL as the driver will, so that a bad one is refused with the other variables, at
// start, before anything is opened.
func FromEnv(getenv func(string) string) (Config, error) {
	cfg, err := config.FromEnv(getenv)
	if err != nil {
		return Config{}, err
	}
	if cfg.DatabaseURL != "" {
		if _, err := poolConfig(cfg); err != nil {
			return Config{}, err
		}
	}
	return cfg, nil
}

// poolConfig is cfg's DATABASE_URL as a pool's config.
func poolConfig(cfg Config) (*pgxpool.Config, error) { return parsePoolConfig(cfg.DatabaseURL) }

// parsePoolConfig reads a PostgreSQL URL. The error never repeats the URL, which may hold a
// password.
func parsePoolConfig(databaseURL string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		msg := err.Error()
		if i := strings.LastIndex(msg, "`: "); i >= 0 {
			msg = msg[i+3:]
		} else {
			msg = "not a PostgreSQL connection string"
		}
		return nil, fmt.Errorf("DATABASE_URL: %s; want a PostgreSQL URL such as postgres://user:password@host:5432/library", msg)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	for param, value := range map[string]string{
		idleInTransaction: strconv.FormatInt(DefaultIdleInTransaction.Milliseconds(), 10),
		"jit":             "off",
	} {
		if _, set := cfg.ConnConfig.RuntimeParams[param]; !set {
			cfg.ConnConfig.RuntimeParams[param] = value
		}
	}
	return cfg, nil
}

// idleInTransaction is the PostgreSQL setting that ends a session left idle inside a
// transaction.
const idleInTransaction = "idle_in_transaction_session_timeout"

// DefaultIdleInTransaction is the idle_in_transaction_session_timeout of the service's own
// sessions, unless DATABASE_URL sets one. None of its transactions waits between statements,
// so only a session whose client is gone (a replica cut off from the database in the middle of
// a transaction) reaches it: the server then ends it, releasing its row locks and the log's
// read horizon, which every processor in the cluster waits on, instead of keeping it until
// TCP notices.
const DefaultIdleInTransaction = 10 * time.Second

// The service's sessions also run with jit off, unless DATABASE_URL says otherwise: its
// statements are short, and a plan PostgreSQL prices above jit_above_cost (a generic plan of a
// view's read of 2,000 events, which guesses at a tenth of a type's events) was compiled on
// every run, which cost more than the read (25 ms against 15 ms here).
