// Package web is the library's web app: plain HTML, CSS and ES modules, with no build step,
// embedded in the binary and served next to the API.
//
// What it promises: the page is served at / and every other file under Prefix (/ui/), paths
// that no API route uses; the app routes with the URL's fragment (/#/books/dune), so none of
// its pages can shadow an API path. It talks to the API as any third-party client would: to
// the origin that served it unless static/ui/config.js names another (a host that serves these
// files elsewhere replaces that file), over CORS when that origin differs. It reads the API's
// /config.json: without sign-in it says so on every page; with it, people sign in through the
// OpenID provider named there (authorization code flow with PKCE, a top-level redirect), the
// access token is kept in the page's memory only and sent as Authorization: Bearer, and each
// person sees only what their roles allow. Every command is sent with one Idempotency-Key per
// intent, kept across every retry of it and across a sign-in that a 401 asked for. When
// /config.json says members pay online, a member's Pay goes to the payment provider's page, and
// the page it sends them back to (#/checkouts/{memberId}/{checkoutId}) says "paid" only once the
// service does; otherwise fines are paid at the desk. Files are
// revalidated on every load (ETag, no-cache), so a new binary's app is never mixed with an old
// one's modules.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// Prefix is the path under which the app's files are served.
const Prefix = "/ui/"

//go:embed static
var static embed.FS

// contentSecurityPolicy lets the page load only its own files. It may call any http(s) origin,
// because the API, the replicas the operations page watches and the OpenID provider (discovery
// and its token endpoint) may live elsewhere. Signing in leaves the page by a top-level
// navigation, never a form, so form-action stays 'none'.
const contentSecurityPolicy = "default-src 'self'; connect-src 'self' http: https:; img-src 'self' data:; " +
	"object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// file is one embedded file, ready to serve.
type file struct {
	body        []byte
	contentType string
	etag        string
}

type handler struct {
	index    file
	files    map[string]file // by URL path: "/ui/app.js"
	notFound http.Handler
}

// Handler serves the app: static/index.html at /, the files under static/ui/ under Prefix,
// and notFound for every other path (http.NotFound when nil). The folder static/ is laid out as
// the URLs are, so that any static host can serve it as it is.
func Handler(notFound http.Handler) http.Handler {
	if notFound == nil {
		notFound = http.NotFoundHandler()
	}
	h := &handler{files: map[string]file{}, notFound: notFound}
	root, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // static is embedded: it is always there
	}
	err = fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		f := file{body: body, contentType: contentType(name), etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
		switch {
		case name == "index.html":
			h.index = f
		case strings.HasPrefix("/"+name, Prefix):
			h.files["/"+name] = f
		}
		return nil
	})
	if err != nil {
		panic(err) // reading an embedded file does not fail
	}
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.notFound.ServeHTTP(w, r)
		return
	}
	if r.URL.Path == "/" {
		w.Header().Set("Content-Security-Policy", contentSecurityPolicy)
		w.Header().Set("Referrer-Policy", "no-referrer")
		serve(w, r, h.index)
		return
	}
	f, found := h.files[r.URL.Path]
	if !found {
		h.notFound.ServeHTTP(w, r)
		return
	}
	serve(w, r, f)
}

// serve writes f, or 304 when the browser's copy is current.
func serve(w http.ResponseWriter, r *http.Request, f file) {
	header := w.Header()
	header.Set("Content-Type", f.contentType)
	header.Set("ETag", f.etag)
	header.Set("Cache-Control", "no-cache")
	header.Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}

// contentTypes are the app's kinds of file, fixed here rather than read from the system's
// MIME database, which differs between machines.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".txt":  "text/plain; charset=utf-8",
}

func contentType(name string) string {
	if t, ok := contentTypes[path.Ext(name)]; ok {
		return t
	}
	return "application/octet-stream"
}
