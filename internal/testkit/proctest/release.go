package proctest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BuildRelease compiles the service as it was at rev, a commit of the repository that holds
// this one's working tree, into dir, and returns the binary's path. The tree at rev is taken
// from the repository's history (git archive): a clone made without it (--depth) can't build
// it, and the error says so.
func BuildRelease(dir, rev string) (string, error) {
	top, err := git(".", "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	commit, err := git(top, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		shallow, _ := git(top, "rev-parse", "--is-shallow-repository")
		return "", fmt.Errorf("the release %s is not in this clone's history (shallow: %s): clone the repository whole, without --depth", rev, shallow)
	}
	src := filepath.Join(dir, "release-"+commit[:12])
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	archive := exec.Command("git", "-C", top, "archive", "--format=tar", commit)
	unpack := exec.Command("tar", "-x", "-C", src)
	if unpack.Stdin, err = archive.StdoutPipe(); err != nil {
		return "", err
	}
	var stderr bytes.Buffer
	archive.Stderr, unpack.Stderr = &stderr, &stderr
	if err := unpack.Start(); err != nil {
		return "", err
	}
	if err := archive.Run(); err != nil {
		return "", fmt.Errorf("git archive %s: %w\n%s", commit, err, stderr.String())
	}
	if err := unpack.Wait(); err != nil {
		return "", fmt.Errorf("unpacking %s: %w\n%s", commit, err, stderr.String())
	}
	binary := filepath.Join(dir, "library-"+commit[:12])
	build := exec.Command("go", "build", "-o", binary, "./cmd/library")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build at %s: %w\n%s", commit, err, out)
	}
	return binary, nil
}

// git runs git in dir and returns its output, trimmed.
func git(dir string, args ...string) (string, error) {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// StartBinary is Start with another build of the service than the one Build made: a release
// before, say (BuildRelease).
func StartBinary(t testing.TB, binary string, env ...string) *Process {
	t.Helper()
	return serve(t, binary, env)
}
