package environment

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Machine is what a result depends on besides the code: the machine, the server and its
// settings, the toolchain and the commit.
type Machine struct {
	Date      time.Time
	CPU       string
	Cores     int
	Memory    string
	GoVersion string
	Commit    string
	// LoadBefore and LoadAfter are the 1, 5 and 15 minute load averages before and after the
	// measurements: on a shared machine, other work skews the results.
	LoadBefore, LoadAfter string
	PostgreSQL            string
	Settings              []setting // the server's settings that matter most for commits
}

type setting struct{ Name, Value string }

// DescribeMachine reads what the run measures on: the machine, Go, PostgreSQL and its settings,
// and the commit of the tree at root.
func DescribeMachine(ctx context.Context, root, databaseURL string) (Machine, error) {
	env := Machine{
		Date:       time.Now().UTC(),
		CPU:        cpuModel(),
		Cores:      runtime.NumCPU(),
		Memory:     memTotal(),
		GoVersion:  runtime.Version(),
		Commit:     gitCommit(ctx, root),
		LoadBefore: LoadAverage(),
	}
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return env, fmt.Errorf("reading the server's settings: %w", err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version')").Scan(&env.PostgreSQL); err != nil {
		return env, fmt.Errorf("reading the server's version: %w", err)
	}
	// The server settings that matter most for the cost of a commit.
	for _, name := range []string{"fsync", "synchronous_commit", "shared_buffers", "max_connections"} {
		var v string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
			return env, fmt.Errorf("reading the setting %s: %w", name, err)
		}
		env.Settings = append(env.Settings, setting{name, v})
	}
	return env, nil
}

// cpuModel is the first "model name" in /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown (" + runtime.GOARCH + ")"
	}
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if k, v, ok := strings.Cut(s.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown (" + runtime.GOARCH + ")"
}

// memTotal is MemTotal from /proc/meminfo, in GiB.
func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "unknown"
	}
	for line := range strings.Lines(string(b)) {
		fields := strings.Fields(line)
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseFloat(fields[1], 64)
			if err != nil {
				break
			}
			return fmt.Sprintf("%.1f GiB", kb/(1<<20))
		}
	}
	return "unknown"
}

// gitCommit is the short commit of HEAD, with "+dirty" when the tree has changes other than
// to docs/benchmarks.md, which an earlier run may have rewritten.
func gitCommit(ctx context.Context, root string) string {
	commit, err := git(ctx, root, "rev-parse", "--short", "HEAD")
	if err != nil {
		return "unknown"
	}
	if status, err := git(ctx, root, "status", "--porcelain", "--", ".", ":(exclude)docs/benchmarks.md"); err == nil && status != "" {
		commit += "+dirty"
	}
	return commit
}

// LoadAverage is the first three fields of /proc/loadavg.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
