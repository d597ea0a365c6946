package environment

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BuildAt builds cmd/library as it is at revision into dir, from a git worktree in dir that
// is removed afterwards, and returns the binary's path and the revision's short hash.
func BuildAt(ctx context.Context, root, dir, revision string) (bin, short string, err error) {
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
			Logf("removing the worktree of BENCH_BEFORE: %v", err)
		}
	}()
	out := filepath.Join(dir, "before")
	if err := os.Mkdir(out, 0o755); err != nil {
		return "", "", fmt.Errorf("directory for the service at BENCH_BEFORE: %w", err)
	}
	if bin, err = BuildService(ctx, src, out); err != nil {
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

// StartBefore starts the service built at BENCH_BEFORE on a database of its own.
func StartBefore(ctx context.Context, beforeBin string, db *Database) (*Service, error) {
	databaseURL, err := db.Another(ctx, "before")
	if err != nil {
		return nil, err
	}
	svc, err := StartService(ctx, beforeBin, databaseURL, "REPLICA_ID=bench-before")
	if err != nil {
		return nil, fmt.Errorf("the service at BENCH_BEFORE: %w", err)
	}
	Logf("the service at BENCH_BEFORE ready at %s", svc.BaseURL)
	return svc, nil
}
