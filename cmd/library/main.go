// Command library is the lending library's back end: an event-sourced HTTP service that runs
// in memory, or on PostgreSQL when DATABASE_URL is set.
//
//	library [serve]                 serve the HTTP API (the default)
//	library migrate up|down|status  manage the database schema
//	library keys rotate             rewrap members' data keys with PII_KEY's first key
//	library members audit           list member ids that look like email addresses
//	library sip terminals add NAME  add a self-check kiosk's terminal; prints its password, once
//	library sip terminals list      list the kiosk terminals and when each was added
//	library sip terminals remove NAME
//	                                remove a kiosk terminal: it can no longer log in
//	library import marc [--report FILE] [--dry-run] [--actor NAME] [--holdings FILE] [--batch N] FILE...
//	                                import a catalogue from MARC 21 files (ISO 2709 or MARCXML, gzipped or not)
//	library export marc             write the catalogue, with its copies, as MARCXML to standard output
//	library help                    print the usage (also -h, --help)
//
// The sip terminals commands, like keys, members, import and export, need DATABASE_URL,
// migrated already.
// Configuration comes from the environment; see docs/configuration.md. A mistake in the command line ends
// the process with status 2, any other failure with 1.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"library/internal/app"
	"library/internal/app/admincli"
	"library/internal/app/catalogcli"
	"library/internal/config"
	"library/internal/telemetry"
	"library/internal/tracing"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal ends the process at once, without waiting for the drain
	}()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	var usageErr usageError
	switch {
	case errors.As(err, &usageErr):
		fmt.Fprintf(os.Stderr, "library: %s\n\n%s\n", usageErr, usage)
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "library:", err)
		os.Exit(1)
	}
}

const usage = `usage:
  library [serve]                 serve the HTTP API (the default)
  library migrate up|down|status  manage the database schema (needs DATABASE_URL)
  library keys rotate             rewrap members' data keys with PII_KEY's first key
  library members audit           list member ids that look like email addresses
  library sip terminals add NAME  add a self-check kiosk's terminal; prints its password, once
  library sip terminals list      list the kiosk terminals and when each was added
  library sip terminals remove NAME
                                  remove a kiosk terminal: it can no longer log in
  library import marc [--report FILE] [--dry-run] [--actor NAME] [--holdings FILE] [--batch N] FILE...
                                  import a catalogue from MARC 21 files (ISO 2709 or MARCXML,
                                  gzipped or not); the same files again record nothing
  library export marc             write the catalogue, with its copies, as MARCXML to standard output
  library help                    print this (also -h, --help)

Configuration comes from the environment: DATABASE_URL, HTTP_ADDR, SMTP_URL and the rest of
docs/configuration.md.`

// usageError is a mistake in the command line.
type usageError string

func (e usageError) Error() string { return string(e) }

// command is what the command line asks for: "serve", "help", "migrate" with its step, or
// "sip" with what follows "sip terminals".
type command struct {
	name, migrate string
	args          []string
	imports       catalogcli.ImportOptions
}

// parseArgs reads the command line, before anything else is read or opened.
func parseArgs(args []string) (command, error) {
	if len(args) == 0 {
		return command{name: "serve"}, nil
	}
	switch name, rest := args[0], args[1:]; name {
	case "serve", "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			return command{}, usageError(fmt.Sprintf("%s takes no arguments, got %q", name, rest[0]))
		}
		if name == "serve" {
			return command{name: "serve"}, nil
		}
		return command{name: "help"}, nil
	case "keys", "members":
		want := map[string]string{"keys": "rotate", "members": "audit"}[name]
		if len(rest) != 1 || rest[0] != want {
			return command{}, usageError(fmt.Sprintf("%s needs %s", name, want))
		}
		return command{name: name}, nil
	case "sip":
		return parseSIP(rest)
	case "import":
		return parseImport(rest)
	case "export":
		if len(rest) != 1 || rest[0] != "marc" {
			return command{}, usageError("export needs marc")
		}
		return command{name: "export"}, nil
	case "migrate":
		if len(rest) != 1 {
			return command{}, usageError("migrate needs one of up, down or status")
		}
		switch rest[0] {
		case "up", "down", "status":
			return command{name: "migrate", migrate: rest[0]}, nil
		}
		return command{}, usageError(fmt.Sprintf("unknown migrate command %q (want up, down or status)", rest[0]))
	default:
		return command{}, usageError(fmt.Sprintf("unknown command %q", name))
	}
}

// parseSIP reads what follows "sip": terminals add NAME, terminals list, terminals remove NAME.
func parseSIP(rest []string) (command, error) {
	if len(rest) == 0 || rest[0] != "terminals" {
		return command{}, usageError("sip needs terminals add NAME, terminals list or terminals remove NAME")
	}
	args := rest[1:]
	switch {
	case len(args) == 0:
		return command{}, usageError("sip terminals needs add NAME, list or remove NAME")
	case args[0] == "list" && len(args) == 1, (args[0] == "add" || args[0] == "remove") && len(args) == 2:
		return command{name: "sip", args: args}, nil
	case args[0] == "list":
		return command{}, usageError("sip terminals list takes no arguments")
	case args[0] == "add" || args[0] == "remove":
		return command{}, usageError(fmt.Sprintf("sip terminals %s needs one terminal name", args[0]))
	}
	return command{}, usageError(fmt.Sprintf("unknown sip terminals command %q (want add, list or remove)", args[0]))
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd, err := parseArgs(args)
	if err != nil {
		return err
	}
	if cmd.name == "help" {
		_, err := fmt.Fprintln(stdout, usage)
		return err
	}
	cfg, err := app.FromEnv(getenv)
	if err != nil {
		return err
	}
	logger := newLogger(stderr, cfg)
	switch cmd.name {
	case "migrate":
		return app.MigrateDatabase(ctx, cfg, logger, cmd.migrate, stdout)
	case "keys":
		return admincli.RotateKeys(ctx, cfg, logger, stdout)
	case "members":
		return admincli.AuditMembers(ctx, cfg, stdout)
	case "sip":
		return admincli.SIPTerminals(ctx, cfg, logger, cmd.args, stdout)
	case "import":
		cmd.imports.Progress = stderr
		collectLessOften(getenv)
		return catalogcli.ImportMARC(ctx, cfg, logger, cmd.imports, stdout)
	case "export":
		return catalogcli.ExportMARC(ctx, cfg, logger, stdout)
	}
	tp, shutdownTracing, err := telemetry.FromEnv(ctx, getenv, cfg.ReplicaID)
	if err != nil {
		return err
	}
	defer flush(shutdownTracing, logger)
	cfg.Tuning.TracerProvider = tp
	a, err := app.New(ctx, cfg, logger)
	if err != nil {
		return err
	}
	return a.Run(ctx)
}

// collectLessOften has an import collect garbage a quarter as often as Go would: its heap may
// grow to five times what it holds (GOGC=400; about 150 MB in all at the default batch), but
// no further than importMemoryLimit, after which it collects as often as it must. An import is
// a batch job whose memory stays flat however large the file, and the default had it spend a
// quarter of its CPU collecting. GOGC or GOMEMLIMIT, either set, is the operator's choice, kept.
func collectLessOften(getenv func(string) string) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(importGCPercent)
	debug.SetMemoryLimit(importMemoryLimit)
}

const (
	importGCPercent   = 400
	importMemoryLimit = 256 << 20
)

func newLogger(w io.Writer, cfg config.Config) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewJSONHandler(w, opts)
	if cfg.LogFormat == "text" {
		h = slog.NewTextHandler(w, opts)
	}
	return slog.New(tracing.LogHandler(h)).With("replica", cfg.ReplicaID)
}

// flush sends the spans not yet exported, within a few seconds.
func flush(shutdown func(context.Context) error, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := shutdown(ctx); err != nil {
		logger.Warn("traces not all exported", "error", err)
	}
}
