package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// cluster is a throwaway PostgreSQL server: its data folder, its process, its address.
type cluster struct {
	dir    string
	url    string
	logs   string
	newCmd func() *exec.Cmd // the server's command, made afresh for each start
	cmd    *exec.Cmd
	exited chan struct{}
}

// startCluster initialises a cluster in a temporary folder and starts it on a free loopback
// port. The server is tied to this process: if the test binary dies, the kernel sends the
// server SIGQUIT (an immediate shutdown).
func startCluster(ctx context.Context) (*cluster, error) {
	initdb, postgres, err := findBinaries()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "library-pgtest-")
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, logs: filepath.Join(dir, "server.log")}
	cred, err := serverCredential(dir)
	if err != nil {
		c.removeDir()
		return nil, err
	}
	data := filepath.Join(dir, "data")
	out, err := command(cred, initdb, "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8",
		"--locale=C", "--no-sync", "--no-instructions").CombinedOutput()
	if err != nil {
		c.removeDir()
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		c.removeDir()
		return nil, err
	}
	if err := os.WriteFile(c.logs, nil, 0o644); err != nil {
		c.removeDir()
		return nil, err
	}
	c.newCmd = func() *exec.Cmd {
		// Each start appends to the log; the server has its own descriptor once started.
		logFile, err := os.OpenFile(c.logs, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			logFile = nil // the server's output is lost, but it still runs
		}
		cmd := command(cred, postgres, "-D", data, "-p", strconv.Itoa(port), "-k", dir,
			"-c", "listen_addresses=127.0.0.1",
			"-c", "max_connections=300",
			"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
		if logFile != nil {
			cmd.Stdout, cmd.Stderr = logFile, logFile
		}
		cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
		return cmd
	}
	if err := c.startProcess(); err != nil {
		c.removeDir()
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	c.url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	if err := c.waitReady(ctx); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

// startProcess starts the server from a goroutine that keeps its OS thread locked for the
// server's lifetime: Linux delivers the parent-death signal when the thread that forked the
// child exits, not when the process does.
func (c *cluster) startProcess() error {
	c.cmd = c.newCmd()
	c.exited = make(chan struct{})
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer close(c.exited)
		err := c.cmd.Start()
		if f, ok := c.cmd.Stdout.(*os.File); ok {
			_ = f.Close() // the server has its own descriptor
		}
		if err != nil {
			started <- err
			return
		}
		started <- nil
		_ = c.cmd.Wait()
	}()
	return <-started
}

func (c *cluster) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-c.exited:
			return fmt.Errorf("postgres exited at start:\n%s", c.readLogs())
		default:
		}
		attempt, cancel := context.WithTimeout(ctx, time.Second)
		conn, err := pgx.Connect(attempt, c.url)
		cancel()
		if err == nil {
			_ = conn.Close(ctx)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within 30s: %w\n%s", err, c.readLogs())
		}
		time.Sleep(50 * time.Millisecond) // polling for the server to come up
	}
}

// stop shuts the server down (fast shutdown, then kill) and removes its folder.
func (c *cluster) stop() {
	c.shutDown()
	c.removeDir()
}

// shutDown stops the server: a fast shutdown, which ends every session, then a kill.
func (c *cluster) shutDown() {
	if c.cmd != nil && c.cmd.Process != nil {
		_ = c.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-c.exited:
		case <-time.After(15 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
	}
}

func (c *cluster) removeDir() { _ = os.RemoveAll(c.dir) }

func (c *cluster) readLogs() string {
	b, _ := os.ReadFile(c.logs)
	return string(bytes.TrimSpace(b))
}

// findBinaries looks for initdb and postgres on PATH, then in Debian's versioned folders.
func findBinaries() (initdb, postgres string, err error) {
	initdb, err1 := exec.LookPath("initdb")
	postgres, err2 := exec.LookPath("postgres")
	if err1 == nil && err2 == nil {
		return initdb, postgres, nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		i, p := filepath.Join(d, "initdb"), filepath.Join(d, "postgres")
		if isExecutable(i) && isExecutable(p) {
			return i, p, nil
		}
	}
	return "", "", errors.New("no PostgreSQL server binaries (initdb, postgres) found and TEST_DATABASE_URL is not set")
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode()&0o111 != 0
}

// serverCredential returns the identity to run initdb and postgres as. PostgreSQL refuses to
// run as root, so as root the server runs as the "postgres" user, which must own the folder.
func serverCredential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, and there is no postgres user to run the server as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

func command(cred *syscall.Credential, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	cmd.Dir = os.TempDir()
	return cmd
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
