package admincli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"library/internal/aggregate"
	"library/internal/app"
	"library/internal/errs"
	"library/internal/terminals"
)

// SIPTerminals runs `library sip terminals add NAME|list|remove NAME` on DATABASE_URL (package
// terminals): args are what follows "terminals", checked by the caller. The database must be
// migrated already: this command reads and appends to the log, and never changes the schema.
// The password add makes is written to out once, and nowhere else.
func SIPTerminals(ctx context.Context, cfg app.Config, logger *slog.Logger, args []string, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("sip terminals needs add NAME, list or remove NAME")
	}
	cfg, err := cfg.Complete()
	if err != nil {
		return err
	}
	store, closeStore, err := app.OpenLog(ctx, cfg, logger, "sip terminals")
	if err != nil {
		return err
	}
	defer closeStore()
	service := terminals.NewService(store, aggregate.Options{FingerprintKey: store.FingerprintKey, Logger: logger}, cfg.Tuning.Now)
	origin := aggregate.Origin{Actor: app.CommandLine("")}
	switch {
	case args[0] == "add" && len(args) == 2:
		password, err := service.Add(ctx, args[1], origin)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "terminal %s added; its password, which will not be shown again:\n%s\n", name(args[1]), password)
		return err
	case args[0] == "remove" && len(args) == 2:
		if err := service.Remove(ctx, args[1], origin); err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "terminal %s removed: it can no longer log in\n", name(args[1]))
		return err
	case args[0] == "list" && len(args) == 1:
		list, err := service.List(ctx)
		if err != nil {
			return err
		}
		return printTerminals(out, list)
	}
	return fmt.Errorf("sip terminals needs add NAME, list or remove NAME, not %q", args)
}

// name is a terminal's name as the registry keeps it, for what the command line prints.
func name(s string) string {
	checked, _ := terminals.CheckName(s)
	return checked
}

// printTerminals writes one line per terminal: its name and when it was added, in UTC.
func printTerminals(out io.Writer, list []terminals.Terminal) error {
	if _, err := fmt.Fprintln(out, errs.Count(len(list), "terminal", "terminals")); err != nil {
		return err
	}
	for _, t := range list {
		if _, err := fmt.Fprintf(out, "%-*s  added %s\n", terminals.MaxNameLength/2, t.Name, t.AddedAt.UTC().Format(time.RFC3339)); err != nil {
			return err
		}
	}
	return nil
}
