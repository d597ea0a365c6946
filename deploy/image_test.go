package deploy_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"
	corev1 "k8s.io/api/core/v1"
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
	defer f.Close()
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

// TestImageBinary builds the binary the way the Dockerfile does, from exactly the files the
// .dockerignore lets into the build context, and runs it with the manifests' configuration:
// what `docker build` and the pods would do, without a container engine.
func TestImageBinary(t *testing.T) {
	t.Parallel()
	base, dev := render(t, baseDir), render(t, devDir)
	vars := readmeVariables(t)

	ctxDir := buildContext(t)
	bin := filepath.Join(t.TempDir(), "library")
	t.Run("build", func(t *testing.T) {
		var goBuild string
		for _, in := range parseDockerfile(t)[0] {
			if in.cmd == "RUN" && strings.Contains(in.args, "go build") {
				goBuild = in.args
			}
		}
		// RUN flags (--mount=...) are BuildKit's, not the shell's.
		fields := strings.Fields(goBuild)
		for len(fields) > 0 && strings.HasPrefix(fields[0], "--") {
			fields = fields[1:]
		}
		script := strings.ReplaceAll(strings.Join(fields, " "), buildOutput, bin)
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = ctxDir
		cmd.Env = append(os.Environ(), "TARGETOS="+runtime.GOOS, "TARGETARCH="+runtime.GOARCH)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the Dockerfile's build, in the build context that .dockerignore leaves:\n$ %s\n%s%v", script, out, err)
		}
		t.Logf("built in %v: %s", time.Since(start).Round(time.Millisecond), script)
	})
	if t.Failed() {
		return
	}

	libraryEnv := func(m *manifests, c *corev1.Container) []string {
		env := []string{"PATH=" + os.Getenv("PATH")}
		for name, v := range m.containerEnv(t, c, map[string]bool{appSecret: true}) {
			if v.fieldPath == "metadata.name" {
				env = append(env, name+"=library-7d9f8c6b5-x2x4q")
			} else if v.known {
				env = append(env, name+"="+v.value)
			}
		}
		return env
	}
	d := base.deployments[appName]
	pod := &d.Spec.Template.Spec

	t.Run("dev configuration is accepted", func(t *testing.T) {
		// The service reads and checks its whole configuration before it looks at its
		// arguments: the usage message means every value of the dev overlay was accepted.
		c := &dev.deployments[appName].Spec.Template.Spec.Containers[0]
		out, err := run(bin, libraryEnv(dev, c), "no-such-command")
		if err == nil || !strings.Contains(out, "usage:") {
			t.Errorf("library with the dev overlay's environment: %v\n%s", err, out)
		}
	})

	t.Run("init container arguments", func(t *testing.T) {
		ic := &pod.InitContainers[0]
		out, err := run(bin, libraryEnv(base, ic), ic.Args...)
		if err == nil || !strings.Contains(out, "migrate needs DATABASE_URL") {
			t.Errorf("library %s without the Secret should ask for DATABASE_URL: %v\n%s", strings.Join(ic.Args, " "), err, out)
		}
	})

	t.Run("serve, probes and SIGTERM", func(t *testing.T) {
		c := &pod.Containers[0]
		env := m2env(libraryEnv(base, c))
		port := freePort(t)
		env["HTTP_ADDR"] = "127.0.0.1:" + strconv.Itoa(port) // the manifests' :8080 may be taken here
		var out bytes.Buffer
		cmd := exec.Command(bin, c.Args...)
		cmd.Env = env2list(env)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		defer func() {
			if cmd.ProcessState == nil {
				_ = cmd.Process.Kill()
				<-exited
			}
			if t.Failed() {
				t.Logf("service output:\n%s", out.String())
			}
		}()

		base := "http://127.0.0.1:" + strconv.Itoa(port)
		probe := func(path string) int {
			ctl := http.Client{Timeout: time.Second}
			resp, err := ctl.Get(base + path)
			if err != nil {
				return 0
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp.StatusCode
		}
		if !eventually(10*time.Second, func() bool { return probe(c.LivenessProbe.HTTPGet.Path) == http.StatusOK }) {
			t.Fatalf("the liveness probe's %s never answered 200", c.LivenessProbe.HTTPGet.Path)
		}
		if code := probe(c.ReadinessProbe.HTTPGet.Path); code != http.StatusOK {
			t.Fatalf("the readiness probe's %s answered %d, want 200", c.ReadinessProbe.HTTPGet.Path, code)
		}

		// What the kubelet does at termination: SIGTERM, then SIGKILL after the grace period.
		stopAt := time.Now()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if !eventually(2*time.Second, func() bool { return probe(c.ReadinessProbe.HTTPGet.Path) == http.StatusServiceUnavailable }) {
			t.Errorf("after SIGTERM the readiness probe doesn't turn 503")
		}
		envm := base2env(env)
		if delay, _ := time.ParseDuration(envm.valueOr("SHUTDOWN_DELAY", vars)); delay > time.Second {
			if code := probe(c.LivenessProbe.HTTPGet.Path); code != http.StatusOK {
				t.Errorf("during SHUTDOWN_DELAY the service stopped serving (%s answered %d)", c.LivenessProbe.HTTPGet.Path, code)
			}
		}
		grace := time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("the service exited with %v after SIGTERM, want 0", err)
			}
			t.Logf("stopped %v after SIGTERM (terminationGracePeriodSeconds %v)", time.Since(stopAt).Round(10*time.Millisecond), grace)
		case <-time.After(grace):
			t.Errorf("the service still runs %v after SIGTERM: the kubelet would SIGKILL it", grace)
		}
	})
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
	f.Close()
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

// run runs the binary to its end with only the given environment, output and error combined.
func run(bin string, env []string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func eventually(within time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(within)
	for {
		if ok() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func m2env(list []string) map[string]string {
	out := map[string]string{}
	for _, kv := range list {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}

func env2list(m map[string]string) []string {
	var out []string
	for _, k := range keys(m) {
		out = append(out, fmt.Sprintf("%s=%s", k, m[k]))
	}
	return out
}

func base2env(m map[string]string) envMap {
	out := envMap{}
	for k, v := range m {
		out[k] = envValue{value: v, known: true}
	}
	return out
}
