package environment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is what a run is told by its environment.
type Config struct {
	// DatabaseURL is BENCH_DATABASE_URL: a server where the run may create and drop a database
	// of its own. Empty: a throwaway cluster is started and removed.
	DatabaseURL string
	// Duration is how long each cell is measured (BENCH_DURATION, default 5s).
	Duration time.Duration
	// Warmup runs each cell's operation, unmeasured, before it (BENCH_WARMUP, default 1s).
	Warmup time.Duration
	// Concurrency is the levels measured (BENCH_CONCURRENCY, default "1,8,32").
	Concurrency []int
	// Accounts is how many streams the spread workloads use (BENCH_ACCOUNTS, default 1000).
	Accounts int
	// Lenders is how many lend at once in the outbox's load (BENCH_LENDERS, default 8).
	Lenders int
	// IdleLoans is how many loans, one at a time, time the outbox at idle (BENCH_IDLE_LOANS,
	// default 50).
	IdleLoans int
	// GrowthPayments is how many payments are timed on each stream length (BENCH_GROWTH_PAYMENTS,
	// default 50).
	GrowthPayments int
	// ColdEvents are the lengths of the account streams a cold load is timed on
	// (BENCH_COLD_EVENTS, default "2,1000,20000,100000"), in ascending order: each is judged
	// against the first.
	ColdEvents []int
	// ColdRounds is how many restarts time each cold read, and each cold payment
	// (BENCH_COLD_ROUNDS, default 7).
	ColdRounds int
	// Before is a git revision (BENCH_BEFORE, default none): the service is built at it too,
	// and its commands, contact changes and contention measured beside the current service's.
	Before string
	// Only is BENCH_ONLY: "timers" runs the timers measurement alone and writes its figures
	// into Output in place of the last full run's (report.SpliceTimers); "holds" does the same
	// with the title holds measurement (report.SpliceHolds), and "titles-search" with the titles
	// search (report.SpliceTitles), and "sip" with the kiosks' checkouts over SIP2 and HTTP
	// (report.SpliceKiosks), and "import" with the catalogue import (report.SpliceImport). Empty:
	// everything.
	Only string
	// ImportRecords is how many generated MARC records the catalogue import measures
	// (BENCH_IMPORT_RECORDS, default DefaultImportRecords: 1,000,000 records are 1,500,000 copies
	// and 6,500,000 events).
	ImportRecords int
	// Output is the Markdown file written (BENCH_OUTPUT, default docs/benchmarks.md, relative
	// to the module root; "-" writes none).
	Output string
}

// LoadConfig reads the run's settings from the environment (see Config).
func LoadConfig() (Config, error) {
	cfg := Config{
		DatabaseURL: os.Getenv("BENCH_DATABASE_URL"),
		Before:      os.Getenv("BENCH_BEFORE"),
		Duration:    5 * time.Second,
		Warmup:      time.Second,
		Concurrency: []int{1, 8, 32},
		Accounts:    1000,
		Output:      "docs/benchmarks.md",

		Lenders:        8,
		IdleLoans:      50,
		GrowthPayments: 50,
		ColdEvents:     []int{2, 1000, 20_000, 100_000},
		ColdRounds:     7,
		ImportRecords:  DefaultImportRecords,
	}
	errs := readDurations(&cfg)
	if s := os.Getenv("BENCH_CONCURRENCY"); s != "" {
		var err error
		if cfg.Concurrency, err = positiveInts("BENCH_CONCURRENCY", s); err != nil {
			errs = append(errs, err)
		}
	}
	if s := os.Getenv("BENCH_COLD_EVENTS"); s != "" {
		var err error
		if cfg.ColdEvents, err = positiveInts("BENCH_COLD_EVENTS", s); err != nil {
			errs = append(errs, err)
		}
		slices.Sort(cfg.ColdEvents)
		cfg.ColdEvents = slices.Compact(cfg.ColdEvents)
	}
	for _, v := range []struct {
		name string
		to   *int
	}{{"BENCH_ACCOUNTS", &cfg.Accounts}, {"BENCH_LENDERS", &cfg.Lenders}, {"BENCH_IDLE_LOANS", &cfg.IdleLoans}, {"BENCH_GROWTH_PAYMENTS", &cfg.GrowthPayments},
		{"BENCH_COLD_ROUNDS", &cfg.ColdRounds}, {"BENCH_IMPORT_RECORDS", &cfg.ImportRecords}} {
		if s := os.Getenv(v.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				errs = append(errs, fmt.Errorf("%s must be a positive integer, not %q", v.name, s))
			}
			*v.to = n
		}
	}
	switch cfg.Only = os.Getenv("BENCH_ONLY"); cfg.Only {
	case "", OnlyTimers, OnlyHolds, OnlyTitles, OnlySIP, OnlyImport, OnlyCommands:
	default:
		errs = append(errs, fmt.Errorf("BENCH_ONLY must be %q, %q, %q, %q, %q, %q or unset (everything), not %q", OnlyTimers, OnlyHolds, OnlyTitles,
			OnlySIP, OnlyImport, OnlyCommands, cfg.Only))
	}
	if s, ok := os.LookupEnv("BENCH_OUTPUT"); ok {
		cfg.Output = s
		if s == "-" {
			cfg.Output = ""
		}
	}
	for _, c := range cfg.Concurrency {
		if c > cfg.Accounts {
			errs = append(errs, fmt.Errorf("BENCH_ACCOUNTS (%d) must be at least the highest concurrency (%d): each worker owns its accounts", cfg.Accounts, c))
			break
		}
	}
	return cfg, errors.Join(errs...)
}

// readDurations reads BENCH_DURATION and BENCH_WARMUP into cfg, and says what is wrong with
// them.
func readDurations(cfg *Config) []error {
	var errs []error
	if s := os.Getenv("BENCH_DURATION"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("BENCH_DURATION must be a positive duration such as 5s, not %q", s))
		}
		cfg.Duration = d
	}
	if s := os.Getenv("BENCH_WARMUP"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			errs = append(errs, fmt.Errorf("BENCH_WARMUP must be a duration such as 1s, not %q", s))
		}
		cfg.Warmup = d
	}
	return errs
}

// OnlyCommands is the value of BENCH_ONLY that runs the throughput cells alone and prints
// them with the targets on a command's cost, writing nothing: a quick look, repeated for the
// spread of those figures.
const OnlyCommands = "commands"

// OnlyTimers is the value of BENCH_ONLY that runs the timers measurement alone.
const OnlyTimers = "timers"

// OnlyHolds is the value of BENCH_ONLY that runs the title holds measurement alone.
const OnlyHolds = "holds"

// OnlyTitles is the value of BENCH_ONLY that runs the titles search measurement alone.
const OnlyTitles = "titles-search"

// OnlySIP is the value of BENCH_ONLY that runs the kiosks' checkouts, over SIP2 and HTTP, alone.
const OnlySIP = "sip"

// DefaultImportRecords is how many records the catalogue import measures unless
// BENCH_IMPORT_RECORDS says otherwise: the million.
const DefaultImportRecords = 1_000_000

// OnlyImport is the value of BENCH_ONLY that runs the catalogue import alone.
const OnlyImport = "import"

// Alone reports whether BENCH_ONLY names a measurement that needs the service alone, on a
// database of its own: no devidp, no SMTP sink, no main service.
func (c Config) Alone() bool {
	switch c.Only {
	case OnlyTimers, OnlyHolds, OnlyTitles, OnlySIP, OnlyImport:
		return true
	}
	return false
}

// positiveInts reads the setting name's value s: positive integers separated by commas.
func positiveInts(name, s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s must be positive integers separated by commas, not %q", name, s)
		}
		out = append(out, n)
	}
	return out, nil
}

// ModuleRoot is the service's repository, the directory above bench/ whose go.mod declares
// module library: the service is built, the throwaway cluster started and the report written,
// relative to it. The benchmark is a module of its own, run from its directory (cd bench &&
// go run .).
func ModuleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull || filepath.Base(filepath.Dir(gomod)) != "bench" {
		return "", errors.New("not inside the benchmark's module: run it from bench/ (cd bench && go run .)")
	}
	root := filepath.Dir(filepath.Dir(gomod))
	if path, err := modulePath(filepath.Join(root, "go.mod")); err != nil {
		return "", fmt.Errorf("the service's module above bench/: %w", err)
	} else if path != serviceModule {
		return "", fmt.Errorf("the module above bench/ is %q, not %q", path, serviceModule)
	}
	return root, nil
}

// serviceModule is the module path of the service the benchmark builds.
const serviceModule = "library"

// modulePath reads the module path from the module directive of a go.mod file.
func modulePath(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for line := range strings.Lines(string(data)) {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], "\"`"), nil
		}
	}
	return "", fmt.Errorf("%s has no module directive", gomod)
}
