package devpay

import (
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"library/internal/devpay/wire"
)

// adminPrefix is where the test controls are served, for scripts and demos. Every one takes
// the secret key, as the API does; a POST takes a form-encoded body (curl -d).
const adminPrefix = "/_devpay/"

func (s *Server) adminRoutes(mux *http.ServeMux) {
	routes := map[string]http.HandlerFunc{
		"GET sessions":                 func(w http.ResponseWriter, _ *http.Request) { list(w, s.Sessions()) },
		"GET sessions/{id}":            s.adminSession,
		"POST sessions/{id}/pay":       s.adminControl(s.Pay),
		"POST sessions/{id}/decline":   s.adminControl(s.Decline),
		"POST sessions/{id}/expire":    s.adminControl(s.Expire),
		"POST sessions/{id}/pay-later": s.adminControl(s.PayLater),
		"POST sessions/{id}/finish":    s.adminFinish,
		"POST expire-due":              func(w http.ResponseWriter, _ *http.Request) { reply(w, map[string]int{"expired": s.ExpireDue()}) },
		"GET refunds":                  func(w http.ResponseWriter, _ *http.Request) { list(w, s.Refunds()) },
		"POST refunds/{id}/settle":     s.adminSettle,
		"GET events":                   func(w http.ResponseWriter, _ *http.Request) { list(w, s.Events()) },
		"GET deliveries":               func(w http.ResponseWriter, _ *http.Request) { list(w, s.Deliveries()) },
		"GET calls":                    s.adminCalls,
		"GET webhooks":                 func(w http.ResponseWriter, _ *http.Request) { reply(w, s.Webhooks()) },
		"POST webhooks/urls":           s.adminURLs,
		"POST webhooks/copies":         s.adminCopies,
		"POST webhooks/hold":           s.adminHold,
		"POST webhooks/release":        s.adminRelease,
		"POST webhooks/drop":           s.adminDrop,
		"POST faults/refunds":          s.adminFailRefunds,
		"POST faults/pending-refunds":  s.adminPendRefunds,
	}
	for pattern, h := range routes {
		method, path, _ := strings.Cut(pattern, " ")
		mux.HandleFunc(method+" "+adminPrefix+path, s.authorized(h))
	}
	mux.HandleFunc(adminPrefix, s.authorized(unknownURL))
}

// WebhookState is how events are being sent.
type WebhookState struct {
	URLs     []string `json:"urls"`
	Copies   int      `json:"copies"`
	Together bool     `json:"together"`
	// HoldAll is true while every event is held back; HeldSessions are the sessions whose
	// events are; Held is how many events are held now.
	HoldAll      bool     `json:"hold_all"`
	HeldSessions []string `json:"held_sessions"`
	Held         int      `json:"held"`
	// Pending are the deliveries waiting or under way.
	Pending int `json:"pending"`
	// FailingRefunds is how many refund calls are still to fail.
	FailingRefunds int `json:"failing_refunds"`
	// RefundsToPend is how many of the next refunds made are still to be pending.
	RefundsToPend int `json:"refunds_to_pend"`
}

// Webhooks is how events are being sent now.
func (s *Server) Webhooks() WebhookState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := WebhookState{URLs: s.hooks.URLs(), Copies: s.copies, Together: s.together, HoldAll: s.holdAll,
		HeldSessions: []string{}, Held: len(s.held), Pending: s.hooks.Pending(), FailingRefunds: s.failing,
		RefundsToPend: s.toPend}
	for id := range s.holds {
		st.HeldSessions = append(st.HeldSessions, id)
	}
	slices.Sort(st.HeldSessions)
	return st
}

func (s *Server) adminSession(w http.ResponseWriter, r *http.Request) {
	sess, found := s.Session(r.PathValue("id"))
	if !found {
		wire.WriteError(w, http.StatusNotFound, wire.Error{Type: wire.InvalidRequest, Code: "resource_missing", Message: "No such checkout.session: '" + r.PathValue("id") + "'"})
		return
	}
	reply(w, sess)
}

func (s *Server) adminControl(do func(string) (Session, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sess, err := do(r.PathValue("id"))
		replySession(w, r.PathValue("id"), sess, err)
	}
}

// adminFinish ends a payment made with pay-later: the form's succeeded is true or false.
func (s *Server) adminFinish(w http.ResponseWriter, r *http.Request) {
	if !parsed(w, r) {
		return
	}
	succeeded, err := strconv.ParseBool(r.PostForm.Get("succeeded"))
	if err != nil {
		wire.WriteError(w, http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest, Param: "succeeded", Message: "succeeded is true or false."})
		return
	}
	sess, err := s.FinishPayment(r.PathValue("id"), succeeded)
	replySession(w, r.PathValue("id"), sess, err)
}

// replySession answers a control of a session: the session, or why the control was refused.
func replySession(w http.ResponseWriter, id string, sess Session, err error) {
	switch {
	case errors.Is(err, ErrNoSession):
		wire.WriteError(w, http.StatusNotFound, wire.Error{Type: wire.InvalidRequest, Code: "resource_missing", Message: "No such checkout.session: '" + id + "'"})
	case errors.Is(err, ErrNotOpen):
		wire.WriteError(w, http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest, Message: "The checkout session is " + sess.Status + ", not open."})
	case errors.Is(err, ErrNotProcessing):
		wire.WriteError(w, http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest,
			Message: "The checkout session's payment is not processing: only a session paid with pay-later is finished, once."})
	default:
		reply(w, sess)
	}
}

// adminSettle settles a pending refund: the form's status is succeeded, failed or canceled.
func (s *Server) adminSettle(w http.ResponseWriter, r *http.Request) {
	if !parsed(w, r) {
		return
	}
	id := r.PathValue("id")
	refund, err := s.SettleRefund(id, r.PostForm.Get("status"))
	switch {
	case errors.Is(err, ErrRefundStatus):
		wire.WriteError(w, http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest, Param: "status", Message: "status is succeeded, failed or canceled."})
	case errors.Is(err, ErrNoRefund):
		wire.WriteError(w, http.StatusNotFound, wire.Error{Type: wire.InvalidRequest, Code: "resource_missing", Message: "No such refund: '" + id + "'"})
	case errors.Is(err, ErrNotPending):
		wire.WriteError(w, http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest, Message: "The refund is " + refund.Status + ", not pending."})
	default:
		reply(w, refund)
	}
}

func (s *Server) adminCalls(w http.ResponseWriter, r *http.Request) {
	if key := r.URL.Query().Get("key"); key != "" {
		reply(w, map[string]any{"key": key, "calls": s.Calls(key)})
		return
	}
	reply(w, map[string]any{"data": s.CallCounts()})
}

func (s *Server) adminURLs(w http.ResponseWriter, r *http.Request) {
	if !parsed(w, r) {
		return
	}
	if err := s.SetWebhookURLs(r.PostForm["url"]); err != nil {
		wire.WriteError(w, http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest, Param: "url", Message: err.Error()})
		return
	}
	reply(w, s.Webhooks())
}

func (s *Server) adminCopies(w http.ResponseWriter, r *http.Request) {
	if !parsed(w, r) {
		return
	}
	n, ok := count(w, r, "n")
	if !ok {
		return
	}
	s.SetCopies(n, r.PostForm.Get("together") == "true")
	reply(w, s.Webhooks())
}

func (s *Server) adminHold(w http.ResponseWriter, r *http.Request) {
	if parsed(w, r) {
		s.Hold(r.PostForm.Get("session"))
		reply(w, s.Webhooks())
	}
}

func (s *Server) adminRelease(w http.ResponseWriter, r *http.Request) {
	if !parsed(w, r) {
		return
	}
	order := InOrder
	switch r.PostForm.Get("order") {
	case "", "in-order":
	case "reverse":
		order = Reversed
	default:
		wire.WriteError(w, http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest, Param: "order", Message: "order is in-order or reverse."})
		return
	}
	reply(w, map[string]int{"released": s.Release(r.PostForm.Get("session"), order)})
}

func (s *Server) adminDrop(w http.ResponseWriter, r *http.Request) {
	if parsed(w, r) {
		reply(w, map[string]int{"dropped": s.Drop(r.PostForm.Get("session"))})
	}
}

func (s *Server) adminFailRefunds(w http.ResponseWriter, r *http.Request) {
	if !parsed(w, r) {
		return
	}
	if n, ok := count(w, r, "n"); ok {
		s.FailRefunds(n)
		reply(w, s.Webhooks())
	}
}

func (s *Server) adminPendRefunds(w http.ResponseWriter, r *http.Request) {
	if !parsed(w, r) {
		return
	}
	if n, ok := count(w, r, "n"); ok {
		s.PendRefunds(n)
		reply(w, s.Webhooks())
	}
}

// parsed reads a POST's form, or answers 400.
func parsed(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		wire.WriteError(w, http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest, Message: "The body is not a form."})
		return false
	}
	return true
}

// count is a form's whole number from 0 to 1000, or a 400.
func count(w http.ResponseWriter, r *http.Request, name string) (int, bool) {
	n, err := strconv.Atoi(r.PostForm.Get(name))
	if err != nil || n < 0 || n > 1000 {
		wire.WriteError(w, http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest, Param: name, Message: name + " is a whole number from 0 to 1000."})
		return 0, false
	}
	return n, true
}

func list[T any](w http.ResponseWriter, items []T) {
	if items == nil {
		items = []T{}
	}
	reply(w, map[string]any{"data": items})
}

func reply(w http.ResponseWriter, v any) { wire.WriteJSON(w, http.StatusOK, wire.MustJSON(v)) }
