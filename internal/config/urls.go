package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/smtpclient"
)

// parseURLs parses DatabaseURL and SMTPURL, each unless it is parsed already.
func (c Config) parseURLs() (Config, error) {
	if c.DatabaseURL != "" && c.database == nil {
		database, err := ParsePoolConfig(c.DatabaseURL)
		if err != nil {
			return Config{}, err
		}
		c.database = database
	}
	if c.SMTPURL != "" && c.smtp == nil {
		smtp, err := smtpclient.ParseURL(c.SMTPURL)
		if err != nil {
			return Config{}, err
		}
		c.smtp = &smtp
	}
	return c, nil
}

// Pool is DatabaseURL as Complete parsed it: a copy, which the caller may change. It is nil
// without DatabaseURL, or before Complete.
func (c Config) Pool() *pgxpool.Config {
	if c.database == nil {
		return nil
	}
	return c.database.Copy()
}

// SMTP is SMTPURL as Complete parsed it, with SMTPMaxPerDomain. It is the zero SMTPConfig
// without SMTPURL, or before Complete.
func (c Config) SMTP() smtpclient.Config {
	if c.smtp == nil {
		return smtpclient.Config{}
	}
	smtp := *c.smtp
	smtp.MaxPerDomain = c.SMTPMaxPerDomain
	return smtp
}

// ParsePoolConfig reads a PostgreSQL URL. The error never repeats the URL, which may hold a
// password.
func ParsePoolConfig(databaseURL string) (*pgxpool.Config, error) {
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
	if _, set := cfg.ConnConfig.RuntimeParams[idleInTransaction]; !set {
		cfg.ConnConfig.RuntimeParams[idleInTransaction] = strconv.FormatInt(DefaultIdleInTransaction.Milliseconds(), 10)
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
