// Package page renders devpay's hosted checkout page: plain HTML that runs no script and loads
// nothing but its own stylesheet, under a strict Content-Security-Policy. What the page shows of
// a session is the caller's to choose (Page); never its metadata or reference.
package page

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// pages are the hosted checkout page and its notices. They run no script and load nothing
// but their stylesheet from devpay.
var pages = template.Must(template.New("").Parse(`
{{define "head"}}<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.}} · devpay</title>
<link rel="stylesheet" href="page.css">
</head>{{end}}

{{define "checkout"}}{{template "head" .Title}}
<body>
<main>
<h1>{{.Title}}</h1>
{{if .Alert}}<p class="alert" role="alert" id="alert">{{.Alert}}</p>{{end}}
<dl>
<dt>Amount</dt><dd id="amount">{{.Amount}}</dd>
<dt>For</dt><dd id="for">{{range $i, $item := .Items}}{{if $i}}, {{end}}{{$item}}{{end}}</dd>
</dl>
{{if .Message}}<p id="status">{{.Message}}</p>{{end}}
{{if .Open}}<form method="post" action="{{.ID}}" aria-label="Payment">
<button type="submit" name="action" value="pay">Pay</button>
<button type="submit" name="action" value="decline" class="secondary">Decline</button>
<button type="submit" name="action" value="cancel" class="secondary">Cancel</button>
</form>
<p class="note">devpay, a payment provider for demos and tests: Pay pays, Decline acts out a
declined card, Cancel goes back without paying. No card, no money.</p>{{end}}
{{if .Continue}}<p><a href="{{.Continue}}">Continue</a></p>{{end}}
</main>
</body>
</html>{{end}}
`))

// css is the pages' stylesheet.
const css = `body{font-family:system-ui,sans-serif;margin:0;padding:2rem 1rem;background:#f4f6f8;color:#1a1a1a}
main{max-width:24rem;margin:0 auto;background:#fff;padding:1.5rem;border-radius:.5rem;border:1px solid #bbb}
h1{font-size:1.4rem;margin-top:0}
dt{font-weight:600}dd{margin:0 0 .75rem 0}
button{margin:.5rem .5rem 0 0;font:inherit;font-weight:600;padding:.6rem 1.2rem;border:2px solid #1d4f91;border-radius:.25rem;background:#1d4f91;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1d4f91}
button:focus,a:focus{outline:3px solid #f2a900;outline-offset:2px}
.alert{color:#8a1111;background:#fdecec;border:1px solid #8a1111;padding:.5rem;border-radius:.25rem}
.note{font-size:.85rem;color:#555;margin-top:1.5rem}
`

// Page is what the page shows of a session.
type Page struct {
	ID, Title, Amount, Alert, Message, Continue string
	Items                                       []string
	Open                                        bool
	// FormAction is the page's CSP form-action directive (FormAction).
	FormAction string
}

// ServeCSS serves the pages' stylesheet.
func ServeCSS(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write([]byte(css))
}

// zeroDecimal are the currencies without a smaller unit, as Stripe lists them.
var zeroDecimal = []string{"bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx", "vnd", "vuv", "xaf", "xof", "xpf"}

// Amount shows an amount in a currency's smallest unit: "EUR 12.50".
func Amount(amount int64, currency string) string {
	code := strings.ToUpper(currency)
	if slices.Contains(zeroDecimal, currency) {
		return fmt.Sprintf("%s %d", code, amount)
	}
	return fmt.Sprintf("%s %d.%02d", code, amount/100, amount%100)
}

// Render writes a page with a strict Content-Security-Policy: nothing loads but devpay's
// stylesheet, no script runs, no one frames the page, and its form may lead only to devpay
// and to where the session sends the browser back (p.FormAction).
func Render(w http.ResponseWriter, status int, p Page) error {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, "checkout", p); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return err
	}
	csp := "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; " + p.FormAction
	h := w.Header()
	h.Set("Content-Security-Policy", strings.TrimSuffix(strings.TrimSpace(csp), ";"))
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	_, err := buf.WriteTo(w)
	return err
}

// FormAction is the form-action directive of a session's page: browsers apply it to the
// redirects that follow the form, so the origins of its success and cancel URLs are allowed
// besides 'self'. CSP cannot name an IPv6 literal: for one, the directive is left out rather
// than break the redirect.
func FormAction(urls ...string) string {
	sources := []string{"'self'"}
	for _, raw := range urls {
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" || strings.ContainsAny(u.Host, "[]; ,'\"") {
			return ""
		}
		if origin := u.Scheme + "://" + u.Host; !slices.Contains(sources, origin) {
			sources = append(sources, origin)
		}
	}
	return "form-action " + strings.Join(sources, " ")
}
