package devpay

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

const (
	pagePath    = "/pay/"
	pageCSSPath = "/pay/page.css"
	// maxPageForm bounds the page's form body.
	maxPageForm = 4 << 10
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

// pageCSS is the pages' stylesheet.
const pageCSS = `body{font-family:system-ui,sans-serif;margin:0;padding:2rem 1rem;background:#f4f6f8;color:#1a1a1a}
main{max-width:24rem;margin:0 auto;background:#fff;padding:1.5rem;border-radius:.5rem;border:1px solid #bbb}
h1{font-size:1.4rem;margin-top:0}
dt{font-weight:600}dd{margin:0 0 .75rem 0}
button{margin:.5rem .5rem 0 0;font:inherit;font-weight:600;padding:.6rem 1.2rem;border:2px solid #1d4f91;border-radius:.25rem;background:#1d4f91;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1d4f91}
button:focus,a:focus{outline:3px solid #f2a900;outline-offset:2px}
.alert{color:#8a1111;background:#fdecec;border:1px solid #8a1111;padding:.5rem;border-radius:.25rem}
.note{font-size:.85rem;color:#555;margin-top:1.5rem}
`

// checkoutPage is what the page shows of a session: never its metadata or reference.
type checkoutPage struct {
	ID, Title, Amount, Alert, Message, Continue string
	Items                                       []string
	Open                                        bool
	formAction                                  string // the page's CSP form-action directive
}

func servePageCSS(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write([]byte(pageCSS))
}

// showPage is GET /pay/{id}.
func (s *Server) showPage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	sess, err := s.lookup(r.PathValue("id"))
	var page checkoutPage
	if err == nil {
		page = pageOf(sess)
	}
	s.mu.Unlock()
	if err != nil {
		s.render(w, http.StatusNotFound, checkoutPage{Title: "No such payment", Message: "This payment page does not exist."}, "")
		return
	}
	s.render(w, http.StatusOK, page, page.formAction)
}

// submitPage is POST /pay/{id}: the Pay, Decline or Cancel button.
func (s *Server) submitPage(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxPageForm)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	action := r.PostForm.Get("action")
	s.mu.Lock()
	sess, err := s.lookup(r.PathValue("id"))
	if err != nil {
		s.mu.Unlock()
		s.render(w, http.StatusNotFound, checkoutPage{Title: "No such payment", Message: "This payment page does not exist."}, "")
		return
	}
	status, redirect := http.StatusOK, ""
	switch action {
	case "pay":
		if _, err = s.pay(sess); err == nil {
			redirect = successURL(sess)
		}
	case "decline":
		err = s.decline(sess)
	case "cancel":
		redirect = sess.CancelURL
	default:
		status = http.StatusBadRequest
	}
	page := pageOf(sess)
	s.mu.Unlock()
	switch {
	case redirect != "" && err == nil:
		http.Redirect(w, r, redirect, http.StatusSeeOther)
		return
	case action == "decline" && err == nil:
		page.Alert = "Your card was declined. Nothing was paid: try again, or cancel."
	case action == "cancel":
		page.Alert = "Cancelled. Nothing was paid."
	case status == http.StatusBadRequest:
		page.Alert = "Choose Pay, Decline or Cancel."
	}
	s.render(w, status, page, page.formAction)
}

// pageOf is what the page of a session shows in its state. s.mu is held.
func pageOf(sess *Session) checkoutPage {
	p := checkoutPage{ID: sess.ID, Amount: formatAmount(sess.AmountTotal, sess.Currency)}
	for _, item := range sess.LineItems {
		name := item.Name
		if item.Quantity > 1 {
			name = fmt.Sprintf("%s × %d", name, item.Quantity)
		}
		p.Items = append(p.Items, name)
	}
	switch sess.Status {
	case StatusOpen:
		p.Title, p.Open = "Pay "+p.Amount, true
	case StatusComplete:
		switch sess.IntentStatus {
		case IntentProcessing:
			p.Title, p.Message, p.Continue = "Payment processing", "This payment is on its way. Nothing more will be charged.", successURL(sess)
		case IntentRequiresPaymentMethod:
			p.Title, p.Message = "Payment failed", "This payment failed: nothing was paid. Start again from the library."
		default:
			p.Title, p.Message, p.Continue = "Paid", "This payment is complete. Nothing more will be charged.", successURL(sess)
		}
	default:
		p.Title, p.Message = "Payment page expired", "This payment page has expired: nothing was paid. Start again from the library."
	}
	p.formAction = formAction(sess.SuccessURL, sess.CancelURL)
	return p
}

// successURL is where a paid session sends the browser, with its id put in as Stripe does.
func successURL(sess *Session) string {
	return strings.ReplaceAll(sess.SuccessURL, "{CHECKOUT_SESSION_ID}", sess.ID)
}

// zeroDecimal are the currencies without a smaller unit, as Stripe lists them.
var zeroDecimal = []string{"bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx", "vnd", "vuv", "xaf", "xof", "xpf"}

// formatAmount shows an amount in a currency's smallest unit: "EUR 12.50".
func formatAmount(amount int64, currency string) string {
	code := strings.ToUpper(currency)
	if slices.Contains(zeroDecimal, currency) {
		return fmt.Sprintf("%s %d", code, amount)
	}
	return fmt.Sprintf("%s %d.%02d", code, amount/100, amount%100)
}

// render writes a page with a strict Content-Security-Policy: nothing loads but devpay's
// stylesheet, no script runs, no one frames the page, and its form may lead only to devpay
// and to where the session sends the browser back.
func (s *Server) render(w http.ResponseWriter, status int, page checkoutPage, formActionDirective string) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, "checkout", page); err != nil {
		s.log.Error("devpay: render page", "error", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	csp := "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; " + formActionDirective
	h := w.Header()
	h.Set("Content-Security-Policy", strings.TrimSuffix(strings.TrimSpace(csp), ";"))
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// formAction is the form-action directive of a session's page: browsers apply it to the
// redirects that follow the form, so the origins of its success and cancel URLs are allowed
// besides 'self'. CSP cannot name an IPv6 literal: for one, the directive is left out rather
// than break the redirect.
func formAction(urls ...string) string {
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
