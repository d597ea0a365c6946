package web_test

// What a person sees when something goes wrong: the API refusing the page's origin (CORS), the
// service down, and the service's problems, each as a sentence, never raw JSON or a blank page.

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp/kb"

	"library/internal/app"
)

// The page served from another origin (a host of the web files alone, whose config.js names the
// API) works when the API's CORS_ORIGINS has that origin: it lists the catalog and adds a book,
// a command with an Idempotency-Key (so with a preflight). Without it, the browser hides the
// API's answers, and the page says why, naming the origin and CORS_ORIGINS.
func TestPageFromAnotherOrigin(t *testing.T) {
	t.Parallel()
	t.Run("allowed", func(t *testing.T) {
		t.Parallel()
		ui := newUIServer(t)
		api := startService(t, app.Config{CORSOrigins: []string{ui.URL}})
		ui.setAPI(api)
		addBooks(t, api, "dune|Dune|Frank Herbert")

		tb := newTab(t)
		tb.open(ui.URL + "/#/books")
		tb.row("Titles", "Dune", "Copies", "1 of 1 on the shelf")
		add := tb.get("region", "Add a book")
		add.get("textbox", "Id").fill("emma")
		add.get("textbox", "Title").fill("Emma")
		add.get("textbox", "Author").fill("Jane Austen")
		add.get("button", "Add book").click()
		add.get("status", "").waitText("Added “Emma” by Jane Austen.")
		tb.row("Titles", "Emma", "Authors", "Jane Austen")
		mustCall(t, http.MethodGet, api+"/books/emma", nil, http.StatusOK)
	})
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		ui := newUIServer(t)
		api := startService(t, app.Config{})
		ui.setAPI(api)

		tb := newTab(t)
		tb.open(ui.URL + "/#/books")
		text := tb.waitText("alert", "", "does not allow requests from this page's origin")
		for _, want := range []string{api, ui.URL, "CORS_ORIGINS"} {
			if !strings.Contains(text, want) {
				t.Fatalf("the message does not name %s: %q", want, text)
			}
		}
	})
}

// The service does not answer (its connections drop): the page says it can't be reached, with
// a button to try again, which works once the service is back.
func TestServiceDownShowsATryAgainButton(t *testing.T) {
	t.Parallel()
	api := startService(t, app.Config{WebUI: true})
	addBooks(t, api, "dune|Dune|Frank Herbert")
	target, err := url.Parse(api)
	if err != nil {
		t.Fatal(err)
	}
	var down atomic.Bool
	transport := &http.Transport{}
	t.Cleanup(transport.CloseIdleConnections)
	proxy := &httputil.ReverseProxy{Transport: transport, Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() && r.URL.Path != "/" && !strings.HasPrefix(r.URL.Path, "/ui/") {
			panic(http.ErrAbortHandler) // the connection drops without an answer
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	down.Store(true)

	tb := newTab(t)
	tb.open(front.URL + "/#/books")
	tb.waitText("alert", "", "can't be reached")
	down.Store(false)
	tb.get("alert", "").get("button", "Try again").click()
	tb.row("Titles", "Dune", "Copies", "1 of 1 on the shelf")
}

// The service's problems read as sentences with their code: never raw JSON.
func TestProblemsReadAsSentences(t *testing.T) {
	t.Parallel()
	api := startService(t, app.Config{WebUI: true})
	addBooks(t, api, "dune|Dune|Frank Herbert")

	tb := newTab(t)
	tb.open(api + "/#/books")
	add := tb.get("region", "Add a book")
	add.get("textbox", "Id").fill("dune")
	add.get("textbox", "Title").fill("Dune")
	add.get("textbox", "Author").fill("Frank Herbert")
	add.get("button", "Add book").click()
	text := tb.waitText("alert", "", "Book already exists: book dune already exists.")
	requireReadable(t, text, "Code: BookAlreadyExists")

	tb.open(api + "/#/books/nope")
	text = tb.waitText("alert", "", "Not found: there is no book nope.")
	requireReadable(t, text, "Code: NotFound")
	tb.get("button", "Try again")

	// A member who has none yet: from the keyboard, through the masthead's finder.
	tb.get("textbox", "Find a member").fill("carol")
	tb.press(kb.Enter)
	tb.get("heading", "Member carol")
	tb.waitText("region", "Account", "carol has no account yet.")
	if alerts, err := tb.queryAX(0, "alert", ""); err != nil || len(alerts) != 0 {
		t.Fatalf("a member without an account is not an error (%v)", err)
	}
}

func requireReadable(t *testing.T, text, code string) {
	t.Helper()
	if !strings.Contains(text, code) {
		t.Fatalf("the message does not give the problem's code (%s): %q", code, text)
	}
	for _, raw := range []string{"{", "\"status\"", "urn:"} {
		if strings.Contains(text, raw) {
			t.Fatalf("the message shows raw JSON (%s): %q", raw, text)
		}
	}
}
