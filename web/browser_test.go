package web_test

// The browser tests drive Debian's Chromium, headless, through the DevTools protocol
// (github.com/chromedp/chromedp). One browser serves the whole test binary; each test opens
// its own tab in its own browser context (its own storage and cache), so that tests run in
// parallel without seeing each other.

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.uber.org/goleak"

	"library/internal/testkit/pgtest"
	"library/internal/testkit/proctest"
)

// TestMain runs the tests against a throwaway PostgreSQL (see pgtest), then stops the browser
// and removes the built binary, and checks that no goroutine outlived the tests: every
// service, proxy and tab a test starts must be gone by then.
func TestMain(m *testing.M) {
	code := pgtest.Run(m)
	stopBrowser()
	removeBinary()
	client.CloseIdleConnections()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines outlived the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// howToGetChromium is the failure of a run on a machine without Chromium: these tests never
// skip, in CI or anywhere else.
const howToGetChromium = `the browser tests need Chromium, and none was found (chromium, chromium-browser,
google-chrome on PATH). Install it:
    apt-get install chromium        (Debian, Ubuntu)
.ci/run installs it when it is missing.`

func findChromium() (string, error) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", errors.New(howToGetChromium)
}

// The shared browser, started by the first test that needs it.
var browser struct {
	once        sync.Once
	ctx         context.Context
	stopAlloc   context.CancelFunc
	stopBrowser context.CancelFunc
	userDataDir string
	err         error
}

// startBrowser starts Chromium headless with a fresh profile. The flags keep it from reaching
// for anything outside this machine (updates, sync, QUIC probes), which a closed network
// would refuse, and from needing a GPU; as root it needs --no-sandbox.
func startBrowser() {
	path, err := findChromium()
	if err != nil {
		browser.err = err
		return
	}
	browser.userDataDir, err = os.MkdirTemp("", "library-web-chromium-")
	if err != nil {
		browser.err = err
		return
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(browser.userDataDir),
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("lang", "en-US"),
		chromedp.WindowSize(viewportWidth, viewportHeight),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	allocCtx, stopAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, stop := chromedp.NewContext(allocCtx)
	if err := chromedp.Do(ctx); err != nil {
		stop()
		stopAlloc()
		browser.err = fmt.Errorf("start %s: %w", path, err)
		return
	}
	browser.ctx, browser.stopAlloc, browser.stopBrowser = ctx, stopAlloc, stop
}

func stopBrowser() {
	if browser.stopBrowser != nil {
		browser.stopBrowser()
		browser.stopAlloc() // waits for the browser process to exit
	}
	if browser.userDataDir != "" {
		_ = os.RemoveAll(browser.userDataDir)
	}
}

// The viewport of every tab, and so of the screenshots.
const viewportWidth, viewportHeight = 1100, 700

// tabTimeout bounds everything one test does in its tab: long, since on a machine busy with
// the other suites the longest (operations: two replicas, a retry, a kill and a takeover)
// has taken more than 90 s.
const tabTimeout = 4 * time.Minute

// newTab opens a tab in a browser context of its own, closed when the test ends. What the page
// writes to its console is shown when the test fails.
func newTab(t *testing.T) *tab {
	t.Helper()
	browser.once.Do(startBrowser)
	if browser.err != nil {
		t.Fatalf("browser: %v", browser.err)
	}
	tabCtx, closeTab := chromedp.NewContext(browser.ctx, chromedp.WithNewBrowserContext())
	ctx, cancel := context.WithTimeout(tabCtx, tabTimeout)
	tb := &tab{t: t, ctx: ctx}
	console := &consoleLog{}
	t.Cleanup(func() {
		cancel()
		closeTab()
		tb.goroutines.Wait()
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(viewportWidth, viewportHeight)); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	messages := chromedp.Console(ctx)
	tb.goroutines.Go(func() { console.read(messages) })
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the page's console:\n%s", console.String())
		}
	})
	return tb
}

// consoleLog keeps what a page writes to its console.
type consoleLog struct {
	mu    sync.Mutex
	lines []string
}

func (c *consoleLog) read(messages iter.Seq2[chromedp.ConsoleMessage, error]) {
	for m, err := range messages {
		if err != nil {
			return
		}
		c.mu.Lock()
		c.lines = append(c.lines, fmt.Sprintf("%s: %s (%s:%d)", m.Type, m.Text, m.URL, m.Line+1))
		c.mu.Unlock()
	}
}

func (c *consoleLog) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.lines, "\n")
}

// screenshot writes the tab's page to $SCREENSHOTS/screenshot-<name>.png when SCREENSHOTS names
// a folder (relative to the repository's root), and does nothing otherwise.
func screenshot(tb *tab, name string) {
	tb.t.Helper()
	dir := os.Getenv("SCREENSHOTS")
	if dir == "" {
		return
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join("..", dir) // tests run in web/
	}
	png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.t.Fatalf("screenshot %s: %v", name, err)
	}
	file := filepath.Join(dir, "screenshot-"+name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		tb.t.Fatalf("screenshot %s: %v", name, err)
	}
	tb.t.Logf("wrote %s", file)
}

// The built binary, for the tests that run the service as separate processes.
var binary struct {
	once sync.Once
	dir  string
	err  error
}

// buildBinary builds cmd/library once per test binary (see proctest).
func buildBinary(t *testing.T) {
	t.Helper()
	binary.once.Do(func() {
		binary.dir, binary.err = os.MkdirTemp("", "library-web-bin-")
		if binary.err == nil {
			binary.err = proctest.Build(binary.dir, "../cmd/library")
		}
	})
	if binary.err != nil {
		t.Fatalf("build the binary: %v", binary.err)
	}
}

func removeBinary() {
	if binary.dir != "" {
		_ = os.RemoveAll(binary.dir)
	}
}
