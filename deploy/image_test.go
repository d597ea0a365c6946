package deploy_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

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
		for name, v := range m.containerEnv(t, c, baseExternal) {
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
		// The service reads and checks its whole configuration, sign-in and ADMIN_TOKEN
		// included, before it opens the database: failing to reach one means that every value
		// of the dev overlay was accepted. Here the database is a closed port, the listeners
		// loopback ones.
		c := &dev.deployments[appName].Spec.Template.Spec.Containers[0]
		env := m2env(libraryEnv(dev, c))
		db, err := url.Parse(env["DATABASE_URL"])
		if err != nil {
			t.Fatalf("the dev DATABASE_URL: %v", err)
		}
		db.Host = "127.0.0.1:" + strconv.Itoa(freePort(t))
		env["DATABASE_URL"] = db.String()
		env["HTTP_ADDR"] = "127.0.0.1:" + strconv.Itoa(freePort(t))
		env["METRICS_ADDR"] = "127.0.0.1:" + strconv.Itoa(freePort(t))
		out, err := run(bin, env2list(env), c.Args...)
		if err == nil || !strings.Contains(out, "cannot reach the database") {
			t.Errorf("library %s with the dev overlay's environment should get as far as the database: %v\n%s", strings.Join(c.Args, " "), err, out)
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
		if env["METRICS_ADDR"] == "" {
			t.Fatalf("the base sets no METRICS_ADDR")
		}
		metricsPort := freePort(t)
		env["METRICS_ADDR"] = "127.0.0.1:" + strconv.Itoa(metricsPort) // and :9090 too
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
				if err := <-exited; err != nil {
					t.Logf("the service, killed: %v", err)
				}
			}
			if t.Failed() {
				t.Logf("service output:\n%s", out.String())
			}
		}()

		base := "http://127.0.0.1:" + strconv.Itoa(port)
		get := func(url string) (int, string) {
			ctl := http.Client{Timeout: time.Second}
			resp, err := ctl.Get(url)
			if err != nil {
				return 0, ""
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			return resp.StatusCode, string(body)
		}
		probe := func(path string) int {
			code, _ := get(base + path)
			return code
		}
		if !eventually(10*time.Second, func() bool { return probe(c.LivenessProbe.HTTPGet.Path) == http.StatusOK }) {
			t.Fatalf("the liveness probe's %s never answered 200", c.LivenessProbe.HTTPGet.Path)
		}
		if code := probe(c.ReadinessProbe.HTTPGet.Path); code != http.StatusOK {
			t.Fatalf("the readiness probe's %s answered %d, want 200", c.ReadinessProbe.HTTPGet.Path, code)
		}

		// Where the pod's annotations send Prometheus (METRICS_ADDR's port, the path), the
		// service's metrics; not on the API, which the Service exposes.
		path := d.Spec.Template.Annotations[pathAnnotation]
		code, body := get("http://127.0.0.1:" + strconv.Itoa(metricsPort) + path)
		if code != http.StatusOK || !strings.Contains(body, "library_http_request_duration_seconds") {
			t.Errorf("GET %s on METRICS_ADDR answered %d, want 200 with the service's metrics:\n%.300s", path, code, body)
		}
		if code := probe(path); code == http.StatusOK {
			t.Errorf("GET %s on the API answered %d; /metrics is served apart from it", path, code)
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
	defer func() { _ = l.Close() }()
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
