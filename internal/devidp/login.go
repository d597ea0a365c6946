package devidp

import (
	"bytes"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/zitadel/oidc/v3/pkg/op"
)

const (
	loginPath     = "/login"
	loginCSSPath  = "/login.css"
	loggedOutPath = "/logged-out"
	// maxLoginForm bounds the sign-in form's body.
	maxLoginForm = 16 << 10
	// noForms is the form-action directive of pages without a form.
	noForms = "form-action 'none'"
)

// pages are the sign-in form and the notices. They load nothing from elsewhere: the one
// stylesheet comes from this provider.
var pages = template.Must(template.New("").Parse(`
{{define "head"}}<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.}}</title>
<link rel="stylesheet" href="login.css">
</head>{{end}}

{{define "login"}}{{template "head" "Sign in to the library"}}
<body>
<main>
<h1>Sign in to the library</h1>
{{if .Error}}<p class="error" role="alert" id="login-error">{{.Error}}</p>{{end}}
<form method="post" action="login">
<input type="hidden" name="id" value="{{.ID}}">
<label for="username">Username</label>
<input id="username" name="username" type="text" value="{{.Username}}" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus{{if .Error}} aria-invalid="true" aria-describedby="login-error"{{end}}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required{{if .Error}} aria-invalid="true" aria-describedby="login-error"{{end}}>
<button type="submit">Sign in</button>
</form>
<p class="note">The library's sign-in for demos and tests. Never for real accounts.</p>
{{if .Users}}<section aria-labelledby="demo-users">
<h2 id="demo-users">Demo users</h2>
<p>This is a demo provider: sign in as any of its users.</p>
<table>
<thead><tr><th scope="col">Username</th><th scope="col">Password</th><th scope="col">Role</th></tr></thead>
<tbody>
{{range .Users}}<tr><td>{{.Username}}</td><td>{{.Password}}</td><td>{{.Role}}</td></tr>
{{end}}</tbody>
</table>
</section>{{end}}
</main>
</body>
</html>{{end}}

{{define "notice"}}{{template "head" .Title}}
<body>
<main>
<h1>{{.Title}}</h1>
<p>{{.Message}}</p>
</main>
</body>
</html>{{end}}
`))

// loginCSS is the stylesheet of every page.
const loginCSS = `body{font-family:system-ui,sans-serif;margin:0;padding:2rem 1rem;background:#f6f6f4;color:#1a1a1a}
main{max-width:22rem;margin:0 auto;background:#fff;padding:1.5rem;border-radius:.5rem;border:1px solid #ccc}
h1{font-size:1.4rem;margin-top:0}
label{display:block;font-weight:600;margin-top:1rem}
input{display:block;width:100%;box-sizing:border-box;font:inherit;padding:.5rem;margin-top:.25rem;border:1px solid #666;border-radius:.25rem}
button{margin-top:1.5rem;font:inherit;font-weight:600;padding:.6rem 1.2rem;border:0;border-radius:.25rem;background:#1d4f91;color:#fff;cursor:pointer}
input:focus,button:focus{outline:3px solid #f2a900;outline-offset:2px}
.error{color:#8a1111;background:#fdecec;border:1px solid #8a1111;padding:.5rem;border-radius:.25rem}
.note{font-size:.85rem;color:#555;margin-top:1.5rem}
h2{font-size:1.1rem;margin-top:1.5rem}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.25rem .5rem .25rem 0;border-bottom:1px solid #ddd}
td:nth-child(2){font-family:ui-monospace,monospace}
`

// loginForm is what the sign-in form shows. Users are listed below it only when
// Options.ShowUsers says so.
type loginForm struct {
	ID, Username, Error string
	Users               []shownUser
}

// shownUser is a row of the sign-in page's list of demo users.
type shownUser struct {
	Username, Password, Role string
}

// shownUsers lists the users for the sign-in page when Options.ShowUsers asks for it: a user
// without roles is a member.
func (p *Provider) shownUsers() []shownUser {
	if !p.opts.ShowUsers {
		return nil
	}
	shown := make([]shownUser, len(p.opts.Users))
	for i, u := range p.opts.Users {
		role := "member"
		if len(u.Roles) > 0 {
			role = strings.Join(u.Roles, ", ")
		}
		shown[i] = shownUser{Username: u.Username, Password: u.Password, Role: role}
	}
	return shown
}

// notice is a page with a message and no form.
type notice struct {
	Title, Message string
}

func serveCSS(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write([]byte(loginCSS))
}

// showLogin serves the sign-in form for the auth request in the query.
func (p *Provider) showLogin(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	req, err := p.store.AuthRequestByID(r.Context(), id)
	if err != nil {
		p.unknownRequest(w)
		return
	}
	p.render(w, http.StatusOK, "login", loginForm{ID: id, Users: p.shownUsers()}, formAction(req.GetRedirectURI()))
}

// submitLogin checks the username and password. On success it marks the auth request signed
// in and sends the browser to op's callback, which redirects to the web app with a code; on a
// failure it shows the form again with an alert.
func (p *Provider) submitLogin(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginForm)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	id, username := r.PostForm.Get("id"), r.PostForm.Get("username")
	req, err := p.store.AuthRequestByID(r.Context(), id)
	if err != nil {
		p.unknownRequest(w)
		return
	}
	u, err := p.users.authenticate(username, r.PostForm.Get("password"))
	if err != nil {
		p.log.InfoContext(r.Context(), "devidp: sign-in refused", slog.String("username", username))
		form := loginForm{ID: id, Username: username, Error: "The username or password is not right. Try again.", Users: p.shownUsers()}
		p.render(w, http.StatusOK, "login", form, formAction(req.GetRedirectURI()))
		return
	}
	if err := p.store.completeLogin(id, u); err != nil {
		p.unknownRequest(w)
		return
	}
	p.log.InfoContext(r.Context(), "devidp: signed in",
		slog.String("username", u.Username), slog.String("client_id", req.GetClientID()))
	callback := op.AuthCallbackURL(p.op)(op.ContextWithIssuer(r.Context(), p.opts.Issuer), id)
	http.Redirect(w, r, callback, http.StatusSeeOther)
}

func (p *Provider) showLoggedOut(w http.ResponseWriter, _ *http.Request) {
	p.render(w, http.StatusOK, "notice", notice{Title: "Signed out",
		Message: "You are signed out of the library's demo sign-in."}, noForms)
}

func (p *Provider) unknownRequest(w http.ResponseWriter) {
	p.render(w, http.StatusBadRequest, "notice", notice{Title: "Sign-in expired",
		Message: "This sign-in is unknown or has expired. Go back to the library and sign in again."}, noForms)
}

// render writes a page with a strict Content-Security-Policy: nothing may load but this
// provider's stylesheet, no script runs, no one may frame the page, and forms may only go
// where formActionDirective says.
func (p *Provider) render(w http.ResponseWriter, status int, name string, data any, formActionDirective string) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		p.log.Error("devidp: render page", slog.String("page", name), slog.Any("error", err))
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	csp := "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'"
	if formActionDirective != "" {
		csp += "; " + formActionDirective
	}
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	_, _ = buf.WriteTo(w)
}

// formAction returns the Content-Security-Policy's form-action directive for a sign-in whose
// web app is at redirectURI. Browsers apply form-action to the redirects that follow a form, so
// the web app's origin is allowed besides 'self'. CSP cannot name an IPv6 literal: for one,
// the directive is left out rather than break the sign-in.
func formAction(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err != nil || u.Host == "" || strings.ContainsAny(u.Host, "[]; ,'\"") {
		return ""
	}
	return "form-action 'self' " + u.Scheme + "://" + u.Host
}
