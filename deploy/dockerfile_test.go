package deploy_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
)

const (
	dockerfilePath   = "../Dockerfile"
	dockerignorePath = "../.dockerignore"
	repoRoot         = ".."
	binaryInImage    = "/library"
	buildOutput      = "/out/library"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	cmd  string // upper case: FROM, RUN, ...
	args string
}

// parseDockerfile reads the Dockerfile into its stages (each starts with FROM).
func parseDockerfile(t *testing.T) [][]instruction {
	t.Helper()
	f, err := os.Open(dockerfilePath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var stages [][]instruction
	var pending string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") || (line == "" && pending == "") {
			continue // comments (also inside continuations) and blank lines
		}
		if s, ok := strings.CutSuffix(line, `\`); ok {
			pending += s + " "
			continue
		}
		line = strings.TrimSpace(pending + line)
		pending = ""
		cmd, args, _ := strings.Cut(line, " ")
		in := instruction{cmd: strings.ToUpper(cmd), args: strings.Join(strings.Fields(args), " ")}
		if in.cmd == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) == 0 {
			if in.cmd == "ARG" {
				continue
			}
			t.Fatalf("Dockerfile: %s before FROM", in.cmd)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], in)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return stages
}

func find(stage []instruction, cmd, contains string) int {
	return slices.IndexFunc(stage, func(in instruction) bool {
		return in.cmd == cmd && strings.Contains(in.args, contains)
	})
}

// TestDockerfile checks the image recipe and that it agrees with the Deployment: the user,
// the port, and the arguments of the two containers.
func TestDockerfile(t *testing.T) {
	stages := parseDockerfile(t)
	if len(stages) != 2 {
		t.Fatalf("Dockerfile has %d stages, want 2 (build, then distroless)", len(stages))
	}
	build, final := stages[0], stages[1]

	from := build[0].args
	if !strings.Contains(from, "golang:1.26") || !strings.HasSuffix(strings.ToLower(from), " as build") {
		t.Errorf("build stage FROM %q, want golang:1.26... AS build", from)
	}
	modules, download, source := find(build, "COPY", "go.mod go.sum"), find(build, "RUN", "go mod download"), find(build, "COPY", ". .")
	if modules < 0 || download < modules || source < download {
		t.Errorf("the build stage should COPY go.mod go.sum, RUN go mod download, then COPY . . (a module layer of its own); got them at %d, %d, %d", modules, download, source)
	}
	goBuild := find(build, "RUN", "go build")
	if goBuild < source {
		t.Fatalf("no RUN ... go build after COPY . .")
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-ldflags='-s -w'", "-o " + buildOutput + " ./cmd/library"} {
		if !strings.Contains(build[goBuild].args, want) {
			t.Errorf("the go build RUN lacks %q: %s", want, build[goBuild].args)
		}
	}

	if final[0].args != "gcr.io/distroless/static-debian12:nonroot" {
		t.Errorf("final stage FROM %q, want gcr.io/distroless/static-debian12:nonroot", final[0].args)
	}
	if find(final, "COPY", "--from=build "+buildOutput+" "+binaryInImage) < 0 {
		t.Errorf("the final stage doesn't COPY --from=build %s %s", buildOutput, binaryInImage)
	}
	last := func(cmd string) string {
		for i := len(final) - 1; i >= 0; i-- {
			if final[i].cmd == cmd {
				return final[i].args
			}
		}
		return ""
	}
	user, _, _ := strings.Cut(last("USER"), ":")
	if user != strconv.Itoa(wantUID) {
		t.Errorf("USER %q, want %d (nonroot, by number, as the Deployment's runAsUser)", last("USER"), wantUID)
	}
	if last("EXPOSE") != strconv.Itoa(wantHTTPPort) {
		t.Errorf("EXPOSE %q, want %d", last("EXPOSE"), wantHTTPPort)
	}
	var entrypoint, cmd []string
	if err := json.Unmarshal([]byte(last("ENTRYPOINT")), &entrypoint); err != nil || !slices.Equal(entrypoint, []string{binaryInImage}) {
		t.Errorf("ENTRYPOINT %s, want [%q] in exec form (there is no shell)", last("ENTRYPOINT"), binaryInImage)
	}
	if err := json.Unmarshal([]byte(last("CMD")), &cmd); err != nil || !slices.Equal(cmd, []string{"serve"}) {
		t.Errorf("CMD %s, want [\"serve\"] in exec form", last("CMD"))
	}
	if last("HEALTHCHECK") != "" || find(final, "RUN", "") >= 0 {
		t.Errorf("the final stage has a RUN or HEALTHCHECK, which need a shell the image doesn't have")
	}

	// The Deployment runs the image as it is meant to be run.
	d := render(t, baseDir).deployments[appName]
	if d == nil {
		t.Fatalf("no Deployment %q", appName)
	}
	if u := d.Spec.Template.Spec.SecurityContext.RunAsUser; u == nil || strconv.FormatInt(*u, 10) != user {
		t.Errorf("the Deployment's runAsUser %v is not the image's USER %s", ptrString(u), user)
	}
}

// buildContext copies into a temporary folder the files Docker would send as the build
// context, as .dockerignore filters them (with Docker's own pattern matcher), and checks that
// the large or secret things stay out.
func buildContext(t *testing.T) string {
	t.Helper()
	f, err := os.Open(dockerignorePath)
	if err != nil {
		t.Fatal(err)
	}
	patterns, err := ignorefile.ReadAll(f)
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	pm, err := patternmatcher.New(patterns)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var files int
	err = filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(repoRoot, path)
		if err != nil || rel == "." {
			return err
		}
		excluded, err := pm.MatchesOrParentMatches(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		if excluded {
			if d.IsDir() && !pm.Exclusions() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		files++
		return copyFile(path, filepath.Join(dir, rel))
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".git", "deploy", "bench", "tmp", "bin", "README.md"} {
		if _, err := os.Stat(filepath.Join(dir, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf(".dockerignore lets %s into the build context", p)
		}
	}
	t.Logf("build context: %d files", files)
	return dir
}

func copyFile(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}
