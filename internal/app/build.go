package app

import (
	"log/slog"
	"net/http"
	"time"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/secrethash"
)

// accountService is members' accounts, with the limits and the PINs' policy of the
// configuration; hashes bounds the PIN hashes made at once.
func (a *App) accountService(repoOpts aggregate.Options, hashes *secrethash.Gate) *accounts.Service {
	cfg := a.cfg
	return accounts.NewService(a.log, repoOpts).
		Limit(accounts.Limits{MaxLoans: cfg.MaxLoans, BlockAt: cfg.BlockAt, OpenCheckouts: cfg.Payments.OpenMax}).
		WithPINs(accounts.PINPolicy{Lockout: cfg.SIP.PINLockout, Now: cfg.Tuning.Now, Gate: hashes,
			Hash: secrethash.Params{Time: cfg.Tuning.PINHash.Time, Memory: cfg.Tuning.PINHash.MemoryKiB, Threads: cfg.Tuning.PINHash.Threads}})
}

// httpServer serves handler with the timeouts and limits of the API.
func (a *App) httpServer(handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      a.cfg.RequestTimeout + 5*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(a.logger.Handler(), slog.LevelWarn),
	}
}
