// Command devidp serves the library's demo OpenID Connect provider (see internal/devidp): for
// local demos and tests only, never for production.
//
//	devidp [-addr 127.0.0.1:9096] [-issuer URL] [-audience library] [-users users.json] [-client-id library-web]
//
// Each flag defaults to an environment variable: DEVIDP_ADDR (default 127.0.0.1:9096),
// DEVIDP_ISSUER (default http:// and the address it listens on), DEVIDP_AUDIENCE (default
// library), DEVIDP_USERS (a JSON file of users; default the three built-in ones, as in
// users.json here, which the sign-in page lists with their passwords), DEVIDP_CLIENT_ID
// (default library-web) and DEVIDP_REDIRECT_URIS (redirect URIs besides loopback ones,
// separated by commas). It stops on SIGINT or SIGTERM.
//
// A token for a script:
//
//	curl -s -u libby:libby-password -d grant_type=client_credentials http://127.0.0.1:9096/oauth/token
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"library/internal/devidp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "devidp:", err)
		os.Exit(1)
	}
}

// config is what the flags and the environment ask for.
type config struct {
	addr, issuer, audience, usersPath, clientID string
	redirectURIs                                []string
}

func parseConfig(args []string, getenv func(string) string, output io.Writer) (config, error) {
	env := func(name, fallback string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return fallback
	}
	var c config
	var redirects string
	fs := flag.NewFlagSet("devidp", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.StringVar(&c.addr, "addr", env("DEVIDP_ADDR", "127.0.0.1:9096"), "address to listen on")
	fs.StringVar(&c.issuer, "issuer", getenv("DEVIDP_ISSUER"), "issuer URL (default http:// and the address listened on)")
	fs.StringVar(&c.audience, "audience", env("DEVIDP_AUDIENCE", "library"), "aud of access tokens")
	fs.StringVar(&c.usersPath, "users", getenv("DEVIDP_USERS"), "JSON file of users (default the built-in alice, libby and oscar)")
	fs.StringVar(&c.clientID, "client-id", env("DEVIDP_CLIENT_ID", "library-web"), "the web app's client id")
	fs.StringVar(&redirects, "redirect-uris", getenv("DEVIDP_REDIRECT_URIS"), "redirect URIs besides loopback ones, comma-separated")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for r := range strings.SplitSeq(redirects, ",") {
		if r = strings.TrimSpace(r); r != "" {
			c.redirectURIs = append(c.redirectURIs, r)
		}
	}
	return c, nil
}

func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	cfg, err := parseConfig(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	slog.SetDefault(logger) // op logs its request errors to the default logger
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	if cfg.issuer == "" {
		cfg.issuer = "http://" + ln.Addr().String()
	}
	return serve(ctx, ln, cfg, logger)
}

// serve serves the provider on ln until ctx ends, then shuts down gracefully.
func serve(ctx context.Context, ln net.Listener, cfg config, logger *slog.Logger) error {
	defer func() { _ = ln.Close() }()
	opts, err := providerOptions(cfg, logger)
	if err != nil {
		return err
	}
	users := opts.Users
	p, err := devidp.New(opts)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	logger.Info("devidp: serving, for demos and tests only", slog.String("issuer", cfg.issuer),
		slog.String("audience", cfg.audience), slog.String("client_id", cfg.clientID), slog.String("users", describe(users)))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	logger.Info("devidp: stopped")
	return nil
}

// providerOptions are the provider's options for cfg. The built-in users are listed on the
// sign-in page with their passwords, which the README states anyway; users from a file are not.
func providerOptions(cfg config, logger *slog.Logger) (devidp.Options, error) {
	opts := devidp.Options{
		Issuer: cfg.issuer, Audience: cfg.audience, Users: devidp.DefaultUsers(), ShowUsers: true,
		WebClientID: cfg.clientID, RedirectURIs: cfg.redirectURIs, Logger: logger,
	}
	if cfg.usersPath != "" {
		users, err := devidp.LoadUsers(cfg.usersPath)
		if err != nil {
			return devidp.Options{}, err
		}
		opts.Users, opts.ShowUsers = users, false
	}
	return opts, nil
}

// describe names each user with their roles, never their password: "alice (no roles), libby
// (librarian)".
func describe(users []devidp.User) string {
	parts := make([]string, len(users))
	for i, u := range users {
		roles := "no roles"
		if len(u.Roles) > 0 {
			roles = strings.Join(u.Roles, ", ")
		}
		parts[i] = fmt.Sprintf("%s (%s)", u.Username, roles)
	}
	return strings.Join(parts, ", ")
}
