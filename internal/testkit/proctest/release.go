package proctest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BuildRelease compiles the service as it was at rev, a commit of the repository that holds
// this one's working tree, into dir, and returns the binary's path. The tree at rev is taken
// from the repository's history (git archive). A clone without that commit (made with --depth,
// or of one branch) fetches it from its remote "origin" first (ReleaseCommit); when even that
// fails, the error names the commit and says what was tried.
//
// The tree is unpacked into a folder named after the commit under the user's cache folder, and
// kept there, so that Go's build cache, which keys a package of the main module by its folder
// too, builds the release once per machine rather than once per run.
func BuildRelease(dir, rev string) (string, error) {
	top, err := git(".", "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("the release %s is built from the repository's history, and this is not a git clone: %w", rev, err)
	}
	commit, err := ReleaseCommit(top, rev)
	if err != nil {
		return "", err
	}
	src, err := releaseTree(top, commit, dir)
	if err != nil {
		return "", err
	}
	binary := filepath.Join(dir, "library-"+commit[:12])
	build := exec.Command("go", "build", "-o", binary, "./cmd/library")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build at %s: %w\n%s", commit, err, out)
	}
	return binary, nil
}

// fetchTimeout bounds each git fetch of ReleaseCommit.
const fetchTimeout = 5 * time.Minute

// ReleaseCommit returns the full id of the commit rev names in the clone at top. When the clone
// lacks it, it fetches it from the remote "origin": that commit alone (git fetch --depth=1,
// which a shallow clone can take), then, in a shallow clone, the whole history (git fetch
// --unshallow), or, in a whole one, every branch. If the commit is still missing, the error
// names it, the remote, and what each fetch answered.
func ReleaseCommit(top, rev string) (string, error) {
	if commit, err := git(top, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); err == nil {
		return commit, nil
	}
	shallow, _ := git(top, "rev-parse", "--is-shallow-repository")
	attempts := [][]string{{"fetch", "--quiet", "--no-tags", "--depth=1", "origin", rev}}
	if shallow == "true" {
		attempts = append(attempts, []string{"fetch", "--quiet", "--no-tags", "--unshallow", "origin"})
	} else {
		attempts[0] = []string{"fetch", "--quiet", "--no-tags", "origin", rev}
		attempts = append(attempts, []string{"fetch", "--quiet", "--no-tags", "origin"})
	}
	var tried []string
	for _, args := range attempts {
		out, err := gitFetch(top, args)
		if commit, found := git(top, "rev-parse", "--verify", "--quiet", rev+"^{commit}"); found == nil {
			return commit, nil
		}
		answer := "it did not bring the commit"
		if err != nil {
			answer = err.Error()
			if first, _, _ := strings.Cut(out, "\n"); first != "" {
				answer += ": " + first
			}
		}
		tried = append(tried, fmt.Sprintf("git %s: %s", strings.Join(args, " "), answer))
	}
	return "", fmt.Errorf("the release %s is not in this clone's history (shallow: %s), and could not be fetched from origin:\n  %s\n"+
		"it is built from the repository's history: fetch it (git fetch --depth=1 origin %s) or clone the repository whole",
		rev, shallow, strings.Join(tried, "\n  "), rev)
}

// gitFetch runs a git fetch in dir that never asks for a password and gives up after
// fetchTimeout, and returns what it wrote, trimmed: its first line says why it failed.
func gitFetch(dir string, args []string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), fetchTimeout)
	defer cancel()
	fetch := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	fetch.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	out, err := fetch.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("no answer within %s", fetchTimeout)
	}
	return strings.TrimSpace(string(out)), err
}

// releaseTree unpacks the tree at commit into a folder of its own under the user's cache folder
// and returns that folder; one unpacked before is used as it is, as the same commit is the same
// tree. It unpacks into a new folder beside it and renames that into place, so that a folder
// under the commit's name is always whole, whoever else unpacks it at the same time. Without a
// cache folder, it unpacks under dir.
func releaseTree(top, commit, dir string) (string, error) {
	parent := dir
	if cache, err := os.UserCacheDir(); err == nil {
		parent = filepath.Join(cache, "library-releases")
	}
	src := filepath.Join(parent, commit)
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err == nil {
		return src, nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(parent, commit[:12]+"-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	archive := exec.Command("git", "-C", top, "archive", "--format=tar", commit)
	unpack := exec.Command("tar", "-x", "-C", tmp)
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
	if err := os.Rename(tmp, src); err != nil {
		if _, statErr := os.Stat(filepath.Join(src, "go.mod")); statErr == nil {
			return src, nil // unpacked by another run meanwhile
		}
		return "", errors.Join(fmt.Errorf("unpacking %s into place", commit), err)
	}
	return src, nil
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
