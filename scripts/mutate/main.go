// Command mutate checks that the tests fail when the code that keeps the service's promises
// breaks. It copies the repository's tracked files (as they are in the working tree) to a
// scratch directory, then makes each listed mutation (mutations_*.go) there, one at a time, runs
// the tests of the package that owns the code, and reports the mutation caught (a test failed)
// or survived (every test passed). A mutation whose text is not found exactly once, or that
// does not build, is reported as such: the list has gone stale.
//
//	make mutate            # or: go run ./scripts/mutate [-run substring]
//
// It prints a Markdown table, for docs/testing.md, and exits 1 when any mutation survived.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	run := flag.String("run", "", "only the mutations whose name holds this")
	timeout := flag.Duration("timeout", 5*time.Minute, "longest a package's tests may run for one mutation")
	flag.Parse()
	os.Exit(exitCode(*run, *timeout))
}

// exitCode runs the mutations: 0 when every one was caught, 1 when any was not, 2 when the
// run itself failed.
func exitCode(filter string, timeout time.Duration) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	bad, err := mutateAll(ctx, filter, timeout)
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "mutate:", err)
		return 2
	case bad > 0:
		return 1
	}
	return 0
}

// outcome is what became of one mutation.
type outcome string

const (
	caught   outcome = "caught"
	survived outcome = "**survived**"
	stale    outcome = "**stale** (text not found once)"
	broken   outcome = "**does not build**"
)

func mutateAll(ctx context.Context, filter string, timeout time.Duration) (int, error) {
	scratch, err := os.MkdirTemp("", "library-mutate-")
	if err != nil {
		return 0, err
	}
	defer func() { _ = os.RemoveAll(scratch) }()
	if err := copyTracked(ctx, scratch); err != nil {
		return 0, err
	}
	fmt.Println("| mutation | file | package | result | time |")
	fmt.Println("|---|---|---|---|--:|")
	bad := 0
	for _, m := range mutations() {
		if !strings.Contains(m.name, filter) {
			continue
		}
		start := time.Now()
		got, err := try(ctx, scratch, m, timeout)
		if err != nil {
			return bad, fmt.Errorf("%s: %w", m.name, err)
		}
		if got != caught {
			bad++
		}
		fmt.Printf("| %s | `%s` | `%s` | %s | %.0f s |\n", m.name, m.file, m.pkg, got, time.Since(start).Seconds())
	}
	return bad, nil
}

// try makes m in the scratch copy, runs its package's tests, and puts the file back.
func try(ctx context.Context, scratch string, m mutation, timeout time.Duration) (outcome, error) {
	path := filepath.Join(scratch, m.file)
	original, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if bytes.Count(original, []byte(m.find)) != 1 {
		return stale, nil
	}
	mutated := bytes.Replace(original, []byte(m.find), []byte(m.replace), 1)
	if err := os.WriteFile(path, mutated, 0o644); err != nil {
		return "", err
	}
	defer func() { _ = os.WriteFile(path, original, 0o644) }()

	// A mutation that does not compile proves nothing: say so rather than count it caught. The
	// test binary is only built here, not run (its TestMain may start a database).
	if _, err := goCmd(ctx, scratch, "test", "-c", "-vet=off", "-o", filepath.Join(scratch, "mutated.test"), m.pkg); err != nil {
		return broken, nil
	}
	_, err = goCmd(ctx, scratch, "test", "-count=1", "-vet=off", "-timeout", timeout.String(), m.pkg)
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case err == nil:
		return survived, nil
	default:
		return caught, nil
	}
}

func goCmd(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// copyTracked copies the files git tracks, as they are in the working tree, to dir.
func copyTracked(ctx context.Context, dir string) error {
	out, err := exec.CommandContext(ctx, "git", "ls-files", "-z").Output()
	if err != nil {
		return fmt.Errorf("git ls-files (run from the repository): %w", err)
	}
	for name := range strings.SplitSeq(strings.TrimRight(string(out), "\x00"), "\x00") {
		data, err := os.ReadFile(name)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			return err
		}
		info, err := os.Stat(name)
		if err != nil {
			return err
		}
		to := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(to, data, info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}
