package app

import "net/http"

// Handler is the service's HTTP handler, every route included: for tests that look at the
// routes themselves.
func (a *App) Handler() http.Handler { return a.server.Handler }
