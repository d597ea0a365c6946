package catalogcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"library/internal/aggregate"
	"library/internal/app"
	"library/internal/books"
	"library/internal/catalogimport"
	"library/internal/eventstore/pgstore"
	"library/internal/marc/marcmap"
	"library/internal/reservations"
	"library/internal/shelves"
	"library/internal/titles"
)

// ImportOptions are what `library import marc` is asked.
type ImportOptions struct {
	Files []string
	// Report is a file the report is written to, as JSON lines: each record refused, and each
	// recorded with warnings. "" for none.
	Report string
	// DryRun decides every record, says what would come of it, and records nothing.
	DryRun bool
	// Actor is who the log says imported; "" for "command-line".
	Actor string
	// Holdings is a holdings mapping file (package marcmap); "" for Koha's 952 and 852/876.
	Holdings string
	// Batch is how many records go to a transaction; 0 for DefaultImportBatch.
	Batch int
	// Progress is where progress is shown: a bar on a terminal, a line every few seconds
	// otherwise. Nil for none.
	Progress io.Writer
}

// DefaultImportBatch is how many records an import writes in one transaction by default.
const DefaultImportBatch = 1000

// ImportMARC runs `library import marc FILE...` on DATABASE_URL: it reads each file (ISO 2709
// or MARCXML, gzipped or not), records its titles and copies (package catalogimport), and
// writes the summary to out. The database must be migrated already. An import stopped half
// way, started again, records what the first did not, and nothing twice.
func ImportMARC(ctx context.Context, cfg app.Config, logger *slog.Logger, opts ImportOptions, out io.Writer) error {
	holdings, err := readHoldings(opts.Holdings)
	if err != nil {
		return err
	}
	report, closeReport, err := openReport(opts.Report)
	if err != nil {
		return err
	}
	defer closeReport()
	store, closeStore, err := app.OpenLog(ctx, cfg, logger, "import marc")
	if err != nil {
		return err
	}
	defer closeStore()
	run := &importRun{importer: importer(store, cfg, opts), holdings: holdings, report: report, batch: opts.Batch}
	if run.batch <= 0 {
		run.batch = DefaultImportBatch
	}
	started := time.Now()
	for _, path := range opts.Files {
		if err := run.file(ctx, path, opts.Progress); err != nil {
			_, printErr := fmt.Fprintf(out, "stopped: %s (%s); an import started again records what this one did not, and nothing twice\n", run.summary, elapsed(started))
			return errors.Join(err, printErr)
		}
	}
	verb := "imported"
	if opts.DryRun {
		verb = "dry run, nothing recorded"
	}
	_, err = fmt.Fprintf(out, "%s: %s in %s\n", verb, run.summary, elapsed(started))
	return err
}

// importer is the catalogue import on store, with the services it writes through.
func importer(store *pgstore.Postgres, cfg app.Config, opts ImportOptions) *catalogimport.Importer {
	repoOpts := aggregate.Options{FingerprintKey: store.FingerprintKey}
	titleService := titles.NewService(store, repoOpts, cfg.Tuning.Now, reservations.NewService(store, repoOpts))
	bookService := books.NewService(store, repoOpts, cfg.Tuning.Now, books.Policy{LoanPeriod: cfg.LoanPeriod}, nil).
		WithTitles(shelves.Shelves{Titles: titleService})
	actor := app.CommandLine(opts.Actor)
	return &catalogimport.Importer{Log: store, Titles: titleService, Books: bookService, Actor: actor, DryRun: opts.DryRun,
		Now: cfg.Tuning.Now, Writes: make(chan struct{}, importWriters)}
}

// importRun is one import's state: the batch in hand, the report and the summary.
type importRun struct {
	importer *catalogimport.Importer
	holdings marcmap.Holdings
	report   *json.Encoder // nil for none
	batch    int
	pending  []catalogimport.Record
	inFlight []*batchInFlight // oldest first
	path     string           // the file in hand
	summary  catalogimport.Summary
	// reportErr is the first failure to write the report.
	reportErr error
}

// reportLine is a line of the report: what came of a record, and the file it is in.
type reportLine struct {
	File string `json:"file"`
	catalogimport.Outcome
}

// elapsed is a duration as the summary says it.
func elapsed(since time.Time) string { return time.Since(since).Round(time.Millisecond).String() }

func readHoldings(path string) (marcmap.Holdings, error) {
	if path == "" {
		return marcmap.Holdings{}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return marcmap.Holdings{}, fmt.Errorf("--holdings: %w", err)
	}
	return marcmap.ParseHoldings(data)
}

func openReport(path string) (*json.Encoder, func(), error) {
	if path == "" {
		return nil, func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--report: %w", err)
	}
	return json.NewEncoder(f), func() { _ = f.Close() }, nil
}
