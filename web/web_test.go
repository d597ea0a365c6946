package web_test

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"library/internal/app"
	"library/internal/config"
	"library/web"
)

// teapot answers the handler's "not found", so that the tests can tell it from anything else.
var teapot = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })

// answer is a whole response of the handler.
type answer struct {
	status int
	header http.Header
	body   string
}

func serve(h http.Handler, method, target string, headers ...string) answer {
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return answer{status: w.Code, header: w.Header(), body: w.Body.String()}
}

// The page is at /, every file it loads under /ui/, each with its type and a policy that lets
// the page load only its own files; anything else is the caller's "not found".
func TestHandlerServesThePageAndItsFiles(t *testing.T) {
	t.Parallel()
	h := web.Handler(teapot)
	page := serve(h, http.MethodGet, "/")
	html := page.body
	if page.status != http.StatusOK || page.header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("GET /: %d %s", page.status, page.header.Get("Content-Type"))
	}
	if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Fatalf("GET /: Content-Security-Policy %q", csp)
	}
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
	refs := regexp.MustCompile(`(?:src|href)="(ui/[^"]+)"`).FindAllStringSubmatch(html, -1)
	if len(refs) < 3 {
		t.Fatalf("the page loads %d files from ui/, want its style sheet, icon and app", len(refs))
	}
	for _, ref := range refs {
		resp := serve(h, http.MethodGet, "/"+ref[1])
		if resp.status != http.StatusOK || resp.header.Get("Content-Type") != types[path.Ext(ref[1])] {
			t.Errorf("GET /%s: %d %s", ref[1], resp.status, resp.header.Get("Content-Type"))
		}
		if resp.header.Get("Cache-Control") != "no-cache" || resp.header.Get("ETag") == "" || resp.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET /%s: Cache-Control %q, ETag %q, X-Content-Type-Options %q", ref[1],
				resp.header.Get("Cache-Control"), resp.header.Get("ETag"), resp.header.Get("X-Content-Type-Options"))
		}
	}

	app := serve(h, http.MethodGet, "/ui/app.js")
	if again := serve(h, http.MethodGet, "/ui/app.js", "If-None-Match", app.header.Get("ETag")); again.status != http.StatusNotModified {
		t.Errorf("GET /ui/app.js with its ETag: %d, want 304", again.status)
	}
	if head := serve(h, http.MethodHead, "/ui/style.css"); head.status != http.StatusOK || head.body != "" {
		t.Errorf("HEAD /ui/style.css: %d", head.status)
	}
	for _, target := range []string{"/ui/", "/ui/missing.js", "/ui/index.html", "/index.html", "/books", "/ui", "/ui/../web.go", "/ui/pages"} {
		if resp := serve(h, http.MethodGet, target); resp.status != http.StatusTeapot {
			t.Errorf("GET %s: %d, want the caller's not found", target, resp.status)
		}
	}
	if resp := serve(h, http.MethodPost, "/"); resp.status != http.StatusTeapot {
		t.Errorf("POST /: %d, want the caller's not found", resp.status)
	}
}

// Every module the app imports is one of its files: a typo in an import would leave the page
// blank in every browser, so it fails here first.
func TestModulesImportOnlyTheirOwnFiles(t *testing.T) {
	t.Parallel()
	static := os.DirFS("static")
	imports := regexp.MustCompile(`(?m)^\s*(?:import|export)\b[^"']*?\bfrom\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)`)
	modules := 0
	err := fs.WalkDir(static, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(name) != ".js" {
			return err
		}
		modules++
		src, err := fs.ReadFile(static, name)
		if err != nil {
			return err
		}
		for _, m := range imports.FindAllStringSubmatch(string(src), -1) {
			spec := m[1] + m[2]
			if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") {
				t.Errorf("%s imports %q, which is not one of the app's files", name, spec)
				continue
			}
			target := path.Join(path.Dir(name), spec)
			if _, err := fs.Stat(static, target); err != nil {
				t.Errorf("%s imports %q: %v", name, spec, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if modules < 5 {
		t.Fatalf("found %d modules under static/", modules)
	}
}

// The service serves the app at / with WEB_UI (the default), with its middleware and its 404
// problem for a missing file, and only the API with WEB_UI=false.
func TestServedByTheServiceUnlessWebUIIsOff(t *testing.T) {
	t.Parallel()
	on, err := config.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	off, err := config.FromEnv(func(name string) string {
		if name == "WEB_UI" {
			return "false"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if !on.WebUI || off.WebUI {
		t.Fatalf("WEB_UI unset gives WebUI %v, WEB_UI=false gives %v", on.WebUI, off.WebUI)
	}
	if _, err := config.FromEnv(func(name string) string {
		if name == "WEB_UI" {
			return "sometimes"
		}
		return ""
	}); err == nil || !strings.Contains(err.Error(), "WEB_UI") {
		t.Fatalf("WEB_UI=sometimes: %v, want an error naming WEB_UI", err)
	}

	withUI := startService(t, app.Config{WebUI: true})
	status, page := callAPI(t, http.MethodGet, withUI+"/", nil)
	if status != http.StatusOK || !strings.Contains(string(page), `<script type="module" src="ui/app.js">`) {
		t.Fatalf("GET / with the web app: %d %.80s", status, page)
	}
	if status, b := callAPI(t, http.MethodGet, withUI+"/ui/missing.js", nil); status != http.StatusNotFound || !strings.Contains(string(b), `"code":"NotFound"`) {
		t.Fatalf("GET /ui/missing.js: %d %s, want the API's 404 problem", status, b)
	}
	apiOnly := startService(t, app.Config{WebUI: false})
	for _, p := range []string{"/", "/ui/app.js"} {
		if status, b := callAPI(t, http.MethodGet, apiOnly+p, nil); status != http.StatusNotFound {
			t.Fatalf("GET %s with WEB_UI=false: %d %.80s, want 404", p, status, b)
		}
	}
}
