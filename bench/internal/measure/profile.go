package measure

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"library/bench/internal/workload"
)

// ProfileResult is where the service's CPU went while it ran commands: a CPU profile taken
// from its PPROF_ADDR during a cell of payments, and the share of the sampled CPU under each of
// a few parts of the code, from `go tool pprof -focus`.
type ProfileResult struct {
	Concurrency int
	Commands    int           // payments that succeeded while profiled
	Wall        time.Duration // how long the profile ran
	CPU         time.Duration // the service's CPU in the profile's samples
	// ProcCPU is the service's user and system time over the payments, from /proc/<pid>/stat.
	ProcCPU time.Duration
	Parts   []profilePart
}

// PerCommand is the service's CPU, from /proc, per payment made while profiled.
func (p ProfileResult) PerCommand() time.Duration {
	if p.Commands == 0 {
		return 0
	}
	return p.ProcCPU / time.Duration(p.Commands)
}

// profilePart is the share of the profile's samples whose stack holds a function that focus
// matches. Parts overlap: a JSON encoder called by a handler counts in both.
type profilePart struct {
	Name  string
	Focus string
	Share float64 // 0 to 1
}

// profileParts are the parts of the code the report shows, in that order.
var profileParts = []profilePart{
	{Name: "HTTP server: a request from its first byte to its answer, handlers included", Focus: `^net/http\.\(\*conn\)\.serve$`},
	{Name: "commands: queue, state, decision (internal/aggregate)", Focus: `^library/internal/aggregate(/window)?\.`},
	{Name: "event store: reads, appends, group commit (internal/eventstore)", Focus: `^library/internal/eventstore(/pgstore)?\.`},
	{Name: "pgx: the PostgreSQL protocol", Focus: `^github\.com/jackc/pgx/v5`},
	{Name: "processors: view models, outbox, sagas (internal/processor)", Focus: `^library/internal/processor(/[a-z]+)?\.`},
	{Name: "JSON (encoding/json)", Focus: `^encoding/json\.`},
	{Name: "system calls (sockets, futexes)", Focus: `^(syscall|internal/runtime/syscall)\.`},
	{Name: "memory allocation (runtime.mallocgc)", Focus: `^runtime\.mallocgc$`},
	{Name: "garbage collection, in the background (runtime.gcBgMarkWorker)", Focus: `^runtime\.gcBgMarkWorker$`},
}

// Profiled is the service Profile profiles: its process, its pprof server and its
// binary.
type Profiled struct {
	PID      int
	PprofURL string
	Bin      string
}

// Profile runs payments at concurrency for d against the service while taking a CPU
// profile from its pprof server, and reading its CPU time from /proc before and after, then
// breaks the profile down with `go tool pprof` against its binary. dir holds the profile.
func Profile(ctx context.Context, cmds *workload.Commands, concurrency int, d time.Duration, svc Profiled, dir string) (ProfileResult, error) {
	op, err := cmds.Prepare(ctx, concurrency)
	if err != nil {
		return ProfileResult{}, err
	}
	path := filepath.Join(dir, "cpu.pprof")
	fetched := make(chan error, 1)
	go func() { fetched <- fetchProfile(ctx, svc.PprofURL, d, path) }()
	cpuBefore, err := processCPU(svc.PID)
	if err != nil {
		return ProfileResult{}, err
	}
	res := RunWorkers(ctx, concurrency, d, op)
	cpuAfter, err := processCPU(svc.PID)
	if err != nil {
		return ProfileResult{}, err
	}
	if err := <-fetched; err != nil {
		return ProfileResult{}, err
	}
	out := ProfileResult{Concurrency: concurrency, Commands: res.Ops, Wall: res.Elapsed, ProcCPU: cpuAfter - cpuBefore}
	bin := svc.Bin
	if out.CPU, _, err = pprofTotal(ctx, bin, path, ""); err != nil {
		return ProfileResult{}, err
	}
	for _, p := range profileParts {
		if _, p.Share, err = pprofTotal(ctx, bin, path, p.Focus); err != nil {
			return ProfileResult{}, err
		}
		out.Parts = append(out.Parts, p)
	}
	return out, nil
}

// clockTicks is USER_HZ, the unit of the times in /proc/<pid>/stat: 100 on every
// architecture Go runs Linux on.
const clockTicks = 100

// processCPU is the user and system time the process has used, from /proc/<pid>/stat.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("the service's CPU time: %w", err)
	}
	// The fields after the command's name, which is in parentheses and may hold spaces: the
	// state is the first of them (field 3), utime the 12th (field 14), stime the 13th.
	_, rest, ok := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("the service's CPU time: unexpected /proc/%d/stat %q", pid, b)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("the service's CPU time: /proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// fetchProfile saves a CPU profile of d from the pprof server at base to path.
func fetchProfile(ctx context.Context, base string, d time.Duration, path string) error {
	url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, int(d.Round(time.Second)/time.Second))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("the service's CPU profile: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the service's CPU profile: %s", resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return fmt.Errorf("the service's CPU profile: %w", err)
	}
	return f.Close()
}

// pprofHeader is the line of `go tool pprof -top` that sums up the nodes shown:
// "Showing nodes accounting for 1.20s, 24.00% of 5s total".
var pprofHeader = regexp.MustCompile(`Showing nodes accounting for (\S+), ([0-9.]+)% of (\S+) total`)

// pprofTotal is the profile's total CPU and the share of it whose stacks match focus (all of it
// when focus is empty).
func pprofTotal(ctx context.Context, bin, path, focus string) (time.Duration, float64, error) {
	// Every node (no -nodecount, no -nodefraction cut), so that the summary line sums them all.
	args := []string{"tool", "pprof", "-top", "-nodefraction=0"}
	if focus != "" {
		args = append(args, "-focus="+focus)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, bin, path)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, 0, fmt.Errorf("go tool pprof: %w: %s", err, strings.TrimSpace(string(out)))
	}
	m := pprofHeader.FindStringSubmatch(string(out))
	if m == nil {
		if focus != "" && strings.Contains(string(out), "no matches") {
			return 0, 0, nil
		}
		return 0, 0, fmt.Errorf("go tool pprof: no summary in %q", strings.TrimSpace(string(out)))
	}
	total, err := time.ParseDuration(m[3])
	if err != nil {
		return 0, 0, fmt.Errorf("go tool pprof: total %q: %w", m[3], err)
	}
	share, err := strconv.ParseFloat(m[2], 64)
	if err != nil {
		return 0, 0, fmt.Errorf("go tool pprof: share %q: %w", m[2], err)
	}
	return total, share / 100, nil
}
