package proctest

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRun runs git in dir as a test's own user, whatever the machine's configuration says.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=test", "-c", "user.email=test@example.org",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(cmd.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// history makes a repository with three commits and returns it and its first commit: the
// release, as the upgrade suite names it.
func history(t *testing.T) (origin, release string) {
	t.Helper()
	origin = filepath.Join(t.TempDir(), "origin")
	gitRun(t, ".", "init", "--quiet", origin)
	for _, message := range []string{"the release", "after it", "and after that"} {
		gitRun(t, origin, "commit", "--quiet", "--allow-empty", "-m", message)
		if release == "" {
			release = gitRun(t, origin, "rev-parse", "HEAD")
		}
	}
	return origin, release
}

// A clone made with --depth 1 lacks the release, and fetches it from origin.
func TestReleaseCommitFetchesItIntoAShallowClone(t *testing.T) {
	t.Parallel()
	origin, release := history(t)
	clone := filepath.Join(t.TempDir(), "clone")
	gitRun(t, ".", "clone", "--quiet", "--depth", "1", "file://"+origin, clone)
	if out, err := exec.Command("git", "-C", clone, "cat-file", "-e", release+"^{commit}").CombinedOutput(); err == nil {
		t.Fatalf("the shallow clone has the release already: the test proves nothing (%s)", out)
	}
	got, err := ReleaseCommit(clone, release)
	if err != nil {
		t.Fatal(err)
	}
	if got != release {
		t.Fatalf("ReleaseCommit = %s, want %s", got, release)
	}
}

// A commit that origin has not either is an error that names it and what was tried; so is a
// clone with no origin.
func TestReleaseCommitSaysWhatIsMissing(t *testing.T) {
	t.Parallel()
	origin, _ := history(t)
	clone := filepath.Join(t.TempDir(), "clone")
	gitRun(t, ".", "clone", "--quiet", "--depth", "1", "file://"+origin, clone)
	missing := strings.Repeat("ab", 20)
	_, err := ReleaseCommit(clone, missing)
	if err == nil {
		t.Fatal("ReleaseCommit found a commit that is nowhere")
	}
	for _, want := range []string{missing, "shallow: true", "git fetch --quiet --no-tags --depth=1 origin " + missing, "--unshallow", "clone the repository whole"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error says nothing of %q:\n%v", want, err)
		}
	}

	_, err = ReleaseCommit(origin, missing)
	if err == nil || !strings.Contains(err.Error(), "shallow: false") || !strings.Contains(err.Error(), "git fetch --quiet --no-tags origin "+missing) {
		t.Errorf("a whole clone with no origin: %v", err)
	}
}
