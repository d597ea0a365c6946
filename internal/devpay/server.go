package devpay

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"library/internal/devpay/hooks"
	"library/internal/devpay/keys"
	"library/internal/devpay/page"
	"library/internal/devpay/wire"
)

// The demo's credentials, as documented for cmd/devpay: for demos and tests only.
const (
	DemoSecretKey     = "sk_test_devpay"
	DemoWebhookSecret = "whsec_devpay"
)

// Options configure a Server. Only URL is required.
type Options struct {
	// URL is the server's own address as browsers and clients see it, such as
	// http://127.0.0.1:9097: the hosted pages' URLs start with it.
	URL string
	// SecretKey is the API key clients must send. Default DemoSecretKey.
	SecretKey string
	// WebhookSecret signs the webhooks. Default DemoWebhookSecret.
	WebhookSecret string
	// WebhookURLs receive every event. None by default; SetWebhookURLs changes them.
	WebhookURLs []string
	// RetryFirst is the wait before a failed delivery's second try; each later wait doubles.
	// Default one second.
	RetryFirst time.Duration
	// Attempts is how many times a delivery is tried before it is given up. Default 6.
	Attempts int
	// WebhookTimeout bounds each delivery. Default 10 seconds.
	WebhookTimeout time.Duration
	// Now is the clock: created, expires_at, the events' created and signatures' timestamps,
	// the sessions' expiry and the idempotency keys' 24 hours. Default time.Now.
	Now func() time.Time
	// SweepEvery is how often sessions past their expires_at are expired. Default one second.
	SweepEvery time.Duration
	// MinExpiry is the least time from now that a new session's expires_at may be, at most 24
	// hours. Default 30 minutes, as at Stripe; tests and demos make it seconds, to watch
	// sessions expire.
	MinExpiry time.Duration
	// Logger receives what happens, never a secret. Default slog.Default().
	Logger *slog.Logger
}

// Server is a running provider. Make it with New, serve Handler, and Close it.
type Server struct {
	opts  Options
	log   *slog.Logger
	hooks *hooks.Dispatcher

	stop      chan struct{} // closed by Close
	swept     chan struct{} // closed when the sweeper has returned
	closeOnce sync.Once

	mu       sync.Mutex
	sessions map[string]*Session
	order    []string          // session ids, oldest first
	byIntent map[string]string // payment intent id → session id
	refunds  []*Refund
	keys     *keys.Store // the answers kept under idempotency keys
	events   []*Event
	holdAll  bool
	holds    map[string]bool // session ids whose events are held back
	held     []*Event        // held back, oldest first
	copies   int             // each event is sent this many times
	together bool            // copies and endpoints are sent at once rather than in order
	failing  int             // refund calls still to fail
	toPend   int             // refunds still to be made pending
}

// New makes a Server and starts its webhook deliveries and its sweeper of expired sessions.
func New(opts Options) (*Server, error) {
	opts = withDefaults(opts)
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("devpay: URL %q is not an http or https URL without query or fragment", opts.URL)
	}
	if opts.MinExpiry > 24*time.Hour {
		return nil, fmt.Errorf("devpay: MinExpiry %v is more than 24 hours, the latest a session may expire", opts.MinExpiry)
	}
	if opts.SecretKey == opts.WebhookSecret {
		return nil, errors.New("devpay: the secret key and the webhook secret must differ")
	}
	s := &Server{
		opts: opts, log: opts.Logger, stop: make(chan struct{}), swept: make(chan struct{}),
		sessions: map[string]*Session{}, byIntent: map[string]string{}, keys: keys.New(keyLifetime),
		holds: map[string]bool{}, copies: 1,
	}
	s.hooks = hooks.New(hooks.Options{Secret: opts.WebhookSecret, RetryFirst: opts.RetryFirst, Attempts: opts.Attempts,
		Timeout: opts.WebhookTimeout, Now: opts.Now, Logger: opts.Logger})
	if err := s.hooks.SetURLs(opts.WebhookURLs); err != nil {
		s.hooks.Close()
		return nil, err
	}
	go s.sweep()
	return s, nil
}

func withDefaults(opts Options) Options {
	opts.URL = strings.TrimSuffix(opts.URL, "/")
	if opts.SecretKey == "" {
		opts.SecretKey = DemoSecretKey
	}
	if opts.WebhookSecret == "" {
		opts.WebhookSecret = DemoWebhookSecret
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.SweepEvery <= 0 {
		opts.SweepEvery = time.Second
	}
	if opts.MinExpiry <= 0 {
		opts.MinExpiry = 30 * time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return opts
}

// Close stops the sweeper and the deliveries, those under way included, and waits for them.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.swept
		s.hooks.Close()
	})
}

// sweep expires the sessions past their expires_at, every SweepEvery, until Close.
func (s *Server) sweep() {
	defer close(s.swept)
	tick := time.NewTicker(s.opts.SweepEvery)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
			s.ExpireDue()
		}
	}
}

func (s *Server) now() time.Time { return s.opts.Now() }

// Handler serves the API (/v1/...), the hosted pages (/pay/...) and the test controls
// (/_devpay/...).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/checkout/sessions", s.api(s.createSession))
	mux.HandleFunc("GET /v1/checkout/sessions/{id}", s.api(s.retrieveSession))
	mux.HandleFunc("POST /v1/checkout/sessions/{id}/expire", s.api(s.expireSession))
	mux.HandleFunc("POST /v1/refunds", s.api(s.createRefund))
	mux.HandleFunc("GET /v1/refunds", s.api(s.listRefunds))
	mux.HandleFunc("GET /v1/refunds/{id}", s.api(s.retrieveRefund))
	mux.HandleFunc("/v1/", s.authorized(unknownURL))
	mux.HandleFunc("GET "+pagePath+"{id}", s.showPage)
	mux.HandleFunc("POST "+pagePath+"{id}", s.submitPage)
	mux.HandleFunc("GET "+pageCSSPath, page.ServeCSS)
	s.adminRoutes(mux)
	return mux
}

// authorized lets through the requests that carry the secret key, as a Bearer token or as
// the user name of basic authentication, as Stripe takes it; the others get a 401 that names
// no key.
func (s *Server) authorized(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			key, _, ok = r.BasicAuth()
		}
		if !ok || key == "" {
			wire.WriteError(w, http.StatusUnauthorized, wire.Error{Type: wire.InvalidRequest,
				Message: "You did not provide an API key. Provide it in the Authorization header as a Bearer token."})
			return
		}
		if subtle.ConstantTimeCompare([]byte(key), []byte(s.opts.SecretKey)) != 1 {
			wire.WriteError(w, http.StatusUnauthorized, wire.Error{Type: wire.InvalidRequest, Message: "Invalid API Key provided."})
			return
		}
		next(w, r)
	}
}

func unknownURL(w http.ResponseWriter, r *http.Request) {
	wire.WriteError(w, http.StatusNotFound, wire.Error{Type: wire.InvalidRequest,
		Message: fmt.Sprintf("Unrecognized request URL (%s: %s). devpay serves only part of Stripe's API.", r.Method, r.URL.Path)})
}
