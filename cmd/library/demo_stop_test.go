package main

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/syncbuf"
)

// Ctrl-C stops the local demo as its banner says: everything it started stops, its folder is
// removed, and it exits 0, with no word of a part that stopped on its own. Once as a shell
// without job control runs scripts/demo.sh, the script alone in a process group that gets the
// signal; once as a newcomer runs make demo, in a terminal, where Ctrl-C is a key and the
// terminal signals its foreground process group. One after the other, since each runs make
// build into the same bin/.
func TestCtrlCStopsTheDemo(t *testing.T) {
	t.Parallel()
	requireMailpit(t)
	root, err := filepath.Abs("../..")
	require.NoError(t, err)

	t.Run("scripts/demo.sh, its process group sent SIGINT", func(t *testing.T) {
		demo := startUp(t, func() *demoRun {
			demo := prepareDemo(t, root, "scripts/demo.sh")
			demo.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			demo.cmd.Stdout, demo.cmd.Stderr = demo.output, demo.output
			demo.start(t)
			return demo
		})
		demo.requireReachesTheScriptAlone(t, demo.cmd.Process.Pid)
		require.NoError(t, syscall.Kill(-demo.cmd.Process.Pid, syscall.SIGINT))
		demo.requireStoppedCleanly(t)
	})

	t.Run("make demo in a terminal, Ctrl-C typed", func(t *testing.T) {
		var controller *os.File
		demo := startUp(t, func() *demoRun {
			demo := prepareDemo(t, root, "make", "demo")
			var terminal *os.File
			controller, terminal = openTerminal(t)
			demo.cmd.Stdin, demo.cmd.Stdout, demo.cmd.Stderr = terminal, terminal, terminal
			// A session of its own with the terminal as its controlling terminal, as a login
			// shell's job: make's process group is the terminal's foreground group.
			demo.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			demo.start(t)
			require.NoError(t, terminal.Close()) // the demo holds it now: reads end when it is gone
			demo.shown = make(chan struct{})
			go func() {
				_, _ = io.Copy(demo.output, controller)
				close(demo.shown)
			}()
			return demo
		})
		_, foreground := processGroups(demo.cmd.Process.Pid)
		demo.requireReachesTheScriptAlone(t, foreground)
		_, err := controller.Write([]byte{0x03}) // Ctrl-C, the terminal's interrupt character
		require.NoError(t, err)
		demo.requireStoppedCleanly(t)
	})
}

// demoRun is one run of the local demo on ports of its own.
type demoRun struct {
	cmd    *exec.Cmd
	tmp    string // its TMPDIR, where it makes its folder
	mark   string // an environment entry that every process it starts inherits
	output *syncbuf.Buffer
	shown  chan struct{} // closed once all it showed on a terminal is read; nil without one
	exited chan struct{}
	err    error // how it ended, once exited is closed
}

// prepareDemo makes the command that runs the demo from the repository's root, on free ports,
// with a TMPDIR of its own. Should the test end before the demo does, the cleanup stops what is
// left of it, by process id.
func prepareDemo(t *testing.T, root string, command ...string) *demoRun {
	t.Helper()
	tmp, err := os.MkdirTemp("", "library-demo-test-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(tmp, 0o755)) // PostgreSQL may run as another user (as root: postgres)
	d := &demoRun{cmd: exec.Command(command[0], command[1:]...), tmp: tmp, output: &syncbuf.Buffer{}, exited: make(chan struct{}),
		mark: fmt.Sprintf("LIBRARY_DEMO_TEST_RUN=%d-%d", os.Getpid(), time.Now().UnixNano())}
	ports := freePorts(t, 9)
	d.cmd.Dir = root
	d.cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { // a newcomer's shell has none
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains([]string{"ADMIN_TOKEN", "PII_KEY", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}, name)
	}), "TMPDIR="+tmp, d.mark, "DEMO_API_PORTS="+ports[0]+" "+ports[1], "DEMO_PG_PORT="+ports[2],
		"DEMO_SMTP_PORT="+ports[3], "DEMO_MAILPIT_PORT="+ports[4], "DEMO_IDP_PORT="+ports[5], "DEMO_PAY_PORT="+ports[6],
		"DEMO_SIP_PORTS="+ports[7]+" "+ports[8])
	t.Cleanup(func() {
		d.stopWhatIsLeft(t)
		_ = os.RemoveAll(tmp)
	})
	return d
}

func (d *demoRun) start(t *testing.T) {
	t.Helper()
	require.NoError(t, d.cmd.Start())
	go func() {
		d.err = d.cmd.Wait()
		close(d.exited)
	}()
}

// startUp runs begin, which prepares and starts a demo, until the demo is up, and checks its
// parts. A port freePorts found free may be taken before the demo looks at it, by another test
// starting a server on a port picked the same way: the demo then ends at once, saying so, and
// begins again on other ports, three times at most.
func startUp(t *testing.T, begin func() *demoRun) *demoRun {
	t.Helper()
	for try := 1; ; try++ {
		d := begin()
		if d.bannerShown(t) {
			d.requireParts(t)
			return d
		}
		if try == 3 || !strings.Contains(d.output.String(), "is already in use") {
			t.Fatalf("the demo ended before it was up (%v):\n%s", d.err, d.output)
		}
		t.Logf("a port the demo was given was taken meanwhile; again, on others:\n%s", d.output)
	}
}

// bannerShown waits for the banner the demo prints once every part answers, and reports
// false if the demo ended first. The first run may compile the binaries from scratch: minutes
// on two cores.
func (d *demoRun) bannerShown(t *testing.T) bool {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for !strings.Contains(d.output.String(), "To stop everything and remove what the demo made") {
		select {
		case <-d.exited:
			if d.shown != nil { // all it wrote on the terminal, read
				select {
				case <-d.shown:
				case <-time.After(10 * time.Second):
				}
			}
			return false
		case <-time.After(100 * time.Millisecond): // polling its output, bounded by the deadline
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo was not up within 10 minutes:\n%s", d.output)
		}
	}
	return true
}

// requireParts checks that every part of a demo that is up runs, and its folder is there.
func (d *demoRun) requireParts(t *testing.T) {
	t.Helper()
	names := map[string]int{}
	for _, name := range markedProcesses(d.mark) {
		names[name]++
	}
	for _, part := range []string{"postgres", "mailpit", "devidp", "devpay"} {
		require.Positive(t, names[part], "the demo runs %s: %v", part, names)
	}
	require.Equal(t, 2, names["library"], "the demo runs two replicas: %v", names)
	folders, err := filepath.Glob(filepath.Join(d.tmp, "library-demo.*"))
	require.NoError(t, err)
	require.Len(t, folders, 1, "the demo's folder")
}

// requireReachesTheScriptAlone checks that of all the demo's processes, the process group that
// Ctrl-C signals holds the script alone (the one its banner says to kill), once it waits: the
// commands that print its banner may take a moment to end. A part that got the signal too could
// stop before the script's trap runs, and be taken for a part that failed; make, the script's
// parent, would end by it, whatever the script did.
func (d *demoRun) requireReachesTheScriptAlone(t *testing.T, group int) {
	t.Helper()
	printed := regexp.MustCompile(`kill (\d+)`).FindStringSubmatch(d.output.String())
	require.NotNil(t, printed, "the banner names the script's process id:\n%s", d.output)
	script, _ := strconv.Atoi(printed[1])
	var reached map[int]string
	deadline := time.Now().Add(10 * time.Second)
	for {
		reached = map[int]string{}
		for pid, name := range markedProcesses(d.mark) {
			if g, _ := processGroups(pid); g == group {
				reached[pid] = name
			}
		}
		if _, ok := reached[script]; (ok && len(reached) == 1) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond) // polling the process table, bounded by the deadline
	}
	require.Equal(t, []int{script}, slices.Collect(maps.Keys(reached)),
		"the processes in the group Ctrl-C signals: %v; the script is %d", reached, script)
}

// processGroups reads a process's group and its terminal's foreground group (0 for none).
func processGroups(pid int) (group, foreground int) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0
	}
	// pid (name) state ppid pgrp session tty_nr tpgid ...: the name may hold spaces.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 6 {
		return 0, 0
	}
	group, _ = strconv.Atoi(fields[2])
	foreground, _ = strconv.Atoi(fields[5])
	return group, foreground
}

// requireStoppedCleanly waits for the demo to end after Ctrl-C, and checks that it ended as its
// banner promises.
func (d *demoRun) requireStoppedCleanly(t *testing.T) {
	t.Helper()
	select {
	case <-d.exited:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the demo did not end within 2 minutes of Ctrl-C:\n%s", d.output)
	}
	if d.shown != nil {
		select {
		case <-d.shown:
		case <-time.After(10 * time.Second):
			t.Fatalf("the terminal is still open 10 s after the demo ended:\n%s", d.output)
		}
	}
	out := d.output.String()
	require.NoError(t, d.err, "exit status 0:\n%s", out)
	require.NotContains(t, out, "the end of its log", "no part stopped on its own, as the demo saw it")
	require.NotContains(t, out, "the logs are kept")
	require.Contains(t, out, "stopped, and ")
	folders, err := filepath.Glob(filepath.Join(d.tmp, "library-demo.*"))
	require.NoError(t, err)
	require.Empty(t, folders, "the demo's folder, removed")
	// PostgreSQL's server may take a moment to go once it has said it stopped.
	deadline := time.Now().Add(10 * time.Second)
	for left := markedProcesses(d.mark); len(left) > 0; left = markedProcesses(d.mark) {
		if time.Now().After(deadline) {
			t.Fatalf("processes the demo started are still running 10 s after it ended: %v", left)
		}
		time.Sleep(50 * time.Millisecond) // polling the process table, bounded by the deadline
	}
}

// stopWhatIsLeft ends a demo the test left running: SIGTERM to each of its processes but
// PostgreSQL's (the script's trap stops the server), then SIGKILL to any still there.
func (d *demoRun) stopWhatIsLeft(t *testing.T) {
	if d.cmd.Process == nil {
		return
	}
	select {
	case <-d.exited:
		if len(markedProcesses(d.mark)) == 0 {
			return
		}
	default:
	}
	for pid, name := range markedProcesses(d.mark) {
		if name != "postgres" {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
	}
	select {
	case <-d.exited:
	case <-time.After(time.Minute):
	}
	for pid, name := range markedProcesses(d.mark) {
		t.Logf("killing %s (%d), left by the demo", name, pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// markedProcesses are the running processes whose environment holds mark, by process id, each
// with its name: every process the demo started, however it left the demo's process tree
// (PostgreSQL's server leaves it at once) or process group.
func markedProcesses(mark string) map[int]string {
	found := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !slices.Contains(strings.Split(string(env), "\x00"), mark) {
			continue
		}
		name, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		found[pid] = strings.TrimSpace(string(name))
	}
	return found
}

// openTerminal opens a pseudo-terminal: the controller, where the test types and reads what is
// shown, and the terminal a program runs in. Both are closed when the test ends.
func openTerminal(t *testing.T) (controller, terminal *os.File) {
	t.Helper()
	controller, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = controller.Close() })
	var unlock int32
	var number uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, controller.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		t.Fatalf("unlock the pseudo-terminal: %v", errno)
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, controller.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&number))); errno != 0 {
		t.Fatalf("number the pseudo-terminal: %v", errno)
	}
	terminal, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(number)), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = terminal.Close() })
	return controller, terminal
}

// freePorts returns n loopback ports that were free a moment ago, each different, from below
// the kernel's range of ephemeral ports: the demo binds them seconds later, after it built and
// started PostgreSQL, and a port of that range, let go of, may meanwhile be the local end of
// any connection another test opens (which failed the demo with "address already in use").
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	low := ephemeralLow(t)
	var ports []string
	for tries := 0; len(ports) < n; tries++ {
		require.Less(t, tries, 1000, "no free port below %d", low)
		port := 10_000 + rand.IntN(low-10_000)
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err != nil || slices.Contains(ports, strconv.Itoa(port)) {
			continue // taken: another
		}
		_ = l.Close()
		ports = append(ports, strconv.Itoa(port))
	}
	return ports
}

// ephemeralLow is the first port of the kernel's ephemeral range (32768 where it can't be read).
func ephemeralLow(t *testing.T) int {
	t.Helper()
	raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	fields := strings.Fields(string(raw))
	if len(fields) == 0 {
		return 32768
	}
	low, err := strconv.Atoi(fields[0])
	if err != nil || low <= 11_000 {
		return 32768
	}
	return low
}

// requireMailpit fails the test when Mailpit is not installed, which the demo would first
// compile, for minutes; make tools installs it, as make test runs it.
func requireMailpit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("mailpit"); err == nil {
		return
	}
	out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output()
	require.NoError(t, err)
	gobin, gopath, _ := strings.Cut(strings.TrimRight(string(out), "\n"), "\n")
	dir := gobin
	if dir == "" {
		dir = filepath.Join(filepath.SplitList(gopath)[0], "bin")
	}
	if _, err := os.Stat(filepath.Join(dir, "mailpit")); err != nil {
		t.Fatalf("Mailpit, which the demo runs, is neither on PATH nor in %s. Install it with `make tools`, "+
			"or with\n\n\tgo install github.com/axllent/mailpit@v1.33.1", dir)
	}
}
