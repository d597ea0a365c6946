package apitest

import (
	"context"
	"io"
	"library/internal/app"
	"library/internal/config"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/testclock"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// StartService runs the service with cfg on 127.0.0.1 until the test ends, then stops it and
// checks that Run returned nil. It returns the service's base URL.
func StartService(t testing.TB, cfg app.Config) (baseURL string) {
	t.Helper()
	baseURL, _ = RunService(t, cfg)
	return baseURL
}

// RunService is StartService that can also be stopped before the test ends: stop shuts the
// service down as SIGTERM would and waits for Run to return. Calling it again does nothing.
func RunService(t testing.TB, cfg app.Config) (baseURL string, stop func()) {
	t.Helper()
	return RunServiceLogging(t, cfg, ServiceLogger(t, cfg))
}

// ServiceLogger sends the service's log lines to the test's log, and a benchmark's nowhere.
func ServiceLogger(t testing.TB, cfg app.Config) *slog.Logger {
	var logs io.Writer = &testLog{t: t}
	if _, benchmark := t.(*testing.B); benchmark {
		logs = io.Discard // a line per request would drown the figures
	}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if cfg.ReplicaID != "" {
		logger = logger.With("replica", cfg.ReplicaID)
	}
	return logger
}

// RunServiceLogging is RunService with the service logging to logger.
func RunServiceLogging(t testing.TB, cfg app.Config, logger *slog.Logger) (baseURL string, stop func()) {
	t.Helper()
	s := Launch(t, cfg, logger)
	return s.Base, s.Stop
}

// PIIKey is the key-encryption key of the services the tests start on a database.
const PIIKey = "dGVzdHMtb25seSBrZXktZW5jcnlwdGlvbiBrZXkgISE=" // "tests-only key-encryption key !!"

// Service is a service that a test started.
type Service struct {
	// Base is the API's base URL, and Metrics that of the listener of /metrics.
	Base, Metrics string
	// SIP is the kiosks' address (host:port), when cfg.SIP.Addr was set.
	SIP string
	// Stop shuts the service down as SIGTERM would and waits for Run to return.
	Stop func()
}

// API is a client of the service.
func (s Service) API(store string) *API { return &API{Base: s.Base, Metrics: s.Metrics, Store: store} }

// Launch runs the service with cfg on 127.0.0.1 until the test ends or Stop is called. Unless
// cfg names an OpenID provider, the service runs with sign-in off (AUTH=off), as the tests of
// features other than sign-in expect; /metrics is served on a port of its own.
func Launch(t testing.TB, cfg app.Config, logger *slog.Logger) Service {
	t.Helper()
	cfg.HTTPAddr = "127.0.0.1:0"
	if cfg.MetricsAddr == "" {
		cfg.MetricsAddr = "127.0.0.1:0"
	}
	if cfg.SIP.Addr != "" {
		cfg.SIP.Addr = "127.0.0.1:0"
	}
	if cfg.Tuning.PINHash == (config.HashCost{}) {
		// The cost is the hash's own business (secrethash's tests hold it to the format);
		// here it would only make every test that sets a PIN slow, ten times so under -race.
		cfg.Tuning.PINHash = config.HashCost{Time: 1, MemoryKiB: 64, Threads: 1}
	}
	if cfg.AuthIssuer == "" && cfg.DatabaseURL != "" {
		cfg.AuthOff = true
	}
	if cfg.PIIKey == "" && cfg.DatabaseURL != "" {
		cfg.PIIKey = PIIKey
	}
	a, err := app.New(context.Background(), cfg, logger)
	require.NoError(t, err, "app.New")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				assert.NoError(t, err, "Run must return nil after a clean shutdown")
			case <-time.After(30 * time.Second):
				t.Error("Run did not return within 30s of its context ending")
			}
		})
	}
	t.Cleanup(stop)
	s := Service{Base: "http://" + a.Addr(), Metrics: "http://" + a.MetricsAddr(), SIP: a.SIPAddr(), Stop: stop}
	if cfg.AuthIssuer != "" {
		// Tokens are checked once the provider's discovery is read, a moment after start (which,
		// on a loaded machine running many services at once, has taken over 30 s).
		api := s.API("")
		Eventually(t, time.Minute, func() bool {
			r, err := api.TrySend(http.MethodGet, "/readyz", nil)
			return err == nil && r.Status == http.StatusOK
		}, "the service to read its OpenID provider's discovery")
	}
	return s
}

// testLog sends the service's log lines to t.Log, shown for failed tests and with -v.
type testLog struct{ t testing.TB }

func (w *testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Clock is a settable clock for app.Tuning.Now, safe for the server's goroutines.
type Clock = testclock.Clock

// T0 is the time every test clock starts at.
var T0 = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// NewClock is a Clock at T0.
func NewClock() *Clock { return testclock.New(T0) }

// A Store is where a service under test keeps its events: Name is "memory" or "postgres", and
// DatabaseURL gives a test a database of its own ("" in memory).
type Store struct {
	Name        string
	DatabaseURL func(t *testing.T) string
}

// Stores are both stores, memory first.
var Stores = []Store{
	{"memory", func(*testing.T) string { return "" }},
	{"postgres", func(t *testing.T) string { return pgtest.NewDatabase(t) }},
}

// ForEachStore runs test, in parallel, once per store, each with its own service started
// from cfg (DatabaseURL is set per store) and a clock at T0 unless cfg brings one.
func ForEachStore(t *testing.T, cfg app.Config, test func(t *testing.T, api *API)) {
	t.Helper()
	for _, s := range Stores {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			c := cfg
			c.DatabaseURL = s.DatabaseURL(t)
			clk := NewClock()
			if c.Tuning.Now == nil {
				c.Tuning.Now = clk.Now
			}
			api := Launch(t, c, ServiceLogger(t, c)).API(s.Name)
			api.Clock = clk
			test(t, api)
		})
	}
}

// TestLog is a writer that sends each write, a log line, to t.Log.
func TestLog(t testing.TB) io.Writer { return &testLog{t: t} }
