package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// listenMetrics opens METRICS_ADDR, when it is set, so that a bad address fails at start.
// /metrics is served there only, apart from the API: what it shows (routes, leases, lag) is for
// the people who run the service, not for its callers.
func (a *App) listenMetrics(ctx context.Context) error {
	if a.cfg.MetricsAddr == "" {
		return nil
	}
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", a.cfg.MetricsAddr)
	if err != nil {
		return fmt.Errorf("listen on METRICS_ADDR %s: %w", a.cfg.MetricsAddr, err)
	}
	a.metricsListener = ln
	return nil
}

// serveMetrics serves /metrics on METRICS_ADDR until ctx ends.
func (a *App) serveMetrics(ctx context.Context) {
	if a.metricsListener == nil {
		return
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", a.metrics.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second, MaxHeaderBytes: MaxHeaderBytes}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() {
		if err := srv.Serve(a.metricsListener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.logger.Warn("metrics server stopped", "error", err)
		}
	}()
	a.logger.Info("serving metrics", "addr", a.MetricsAddr())
}

// MetricsAddr is the address /metrics is served on, "" when METRICS_ADDR is unset.
func (a *App) MetricsAddr() string {
	if a.metricsListener == nil {
		return ""
	}
	return a.metricsListener.Addr().String()
}
