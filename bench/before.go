package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The before measurements (BENCH_BEFORE): the service as built at another revision, a process
// of its own on a database of its own, measured with the same commands, contact changes and
// contention as the current service. Each of its cells runs right after the current service's at the same
// concurrency, so that both meet the machine in the same state.

// beforeSuffix marks the rows of the service built at BENCH_BEFORE.
const beforeSuffix = " (before)"

// before is a measurement of the service built at BENCH_BEFORE: the same work, under its own
// label.
type before struct{ measurement }

func (b before) name() string { return b.measurement.name() + beforeSuffix }

// buildAt builds cmd/library as it is at revision into dir, from a git worktree in dir that
// is removed afterwards, and returns the binary's path and the revision's short hash.
func buildAt(ctx context.Context, root, dir, revision string) (bin, short string, err error) {
	full, err := git(ctx, root, "rev-parse", "--verify", "--quiet", revision+"^{commit}")
	if err != nil {
		return "", "", fmt.Errorf("BENCH_BEFORE=%s is not a commit: %w", revision, err)
	}
	if short, err = git(ctx, root, "rev-parse", "--short", full); err != nil {
		return "", "", err
	}
	src := filepath.Join(dir, "before-src")
	if _, err := git(ctx, root, "worktree", "add", "--detach", src, full); err != nil {
		return "", "", err
	}
	defer func() {
		// Even when the run is interrupted: a worktree left behind stays registered in root.
		if _, err := git(context.WithoutCancel(ctx), root, "worktree", "remove", "--force", src); err != nil {
			logf("removing the worktree of BENCH_BEFORE: %v", err)
		}
	}()
	out := filepath.Join(dir, "before")
	if err := os.Mkdir(out, 0o755); err != nil {
		return "", "", fmt.Errorf("directory for the service at BENCH_BEFORE: %w", err)
	}
	if bin, err = buildService(ctx, src, out); err != nil {
		return "", "", fmt.Errorf("BENCH_BEFORE=%s: %w", revision, err)
	}
	return bin, short, nil
}

// git runs git in dir and returns its output, trimmed.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// startBefore starts the service built at BENCH_BEFORE on a database of its own.
func startBefore(ctx context.Context, beforeBin string, db *database) (*service, error) {
	databaseURL, err := db.another(ctx, "before")
	if err != nil {
		return nil, err
	}
	svc, err := startService(ctx, beforeBin, databaseURL, "REPLICA_ID=bench-before")
	if err != nil {
		return nil, fmt.Errorf("the service at BENCH_BEFORE: %w", err)
	}
	logf("the service at BENCH_BEFORE ready at %s", svc.BaseURL)
	return svc, nil
}
