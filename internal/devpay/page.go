package devpay

import (
	"fmt"
	"net/http"
	"strings"

	"library/internal/devpay/page"
)

const (
	pagePath    = "/pay/"
	pageCSSPath = "/pay/page.css"
	// maxPageForm bounds the page's form body.
	maxPageForm = 4 << 10
)

// showPage is GET /pay/{id}.
func (s *Server) showPage(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	sess, err := s.lookup(r.PathValue("id"))
	var p page.Page
	if err == nil {
		p = pageOf(sess)
	}
	s.mu.Unlock()
	if err != nil {
		s.render(w, http.StatusNotFound, page.Page{Title: "No such payment", Message: "This payment page does not exist."})
		return
	}
	s.render(w, http.StatusOK, p)
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
		s.render(w, http.StatusNotFound, page.Page{Title: "No such payment", Message: "This payment page does not exist."})
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
	p := pageOf(sess)
	s.mu.Unlock()
	switch {
	case redirect != "" && err == nil:
		http.Redirect(w, r, redirect, http.StatusSeeOther)
		return
	case action == "decline" && err == nil:
		p.Alert = "Your card was declined. Nothing was paid: try again, or cancel."
	case action == "cancel":
		p.Alert = "Cancelled. Nothing was paid."
	case status == http.StatusBadRequest:
		p.Alert = "Choose Pay, Decline or Cancel."
	}
	s.render(w, status, p)
}

// pageOf is what the page of a session shows in its state. s.mu is held.
func pageOf(sess *Session) page.Page {
	p := page.Page{ID: sess.ID, Amount: page.Amount(sess.AmountTotal, sess.Currency)}
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
	p.FormAction = page.FormAction(sess.SuccessURL, sess.CancelURL)
	return p
}

// successURL is where a paid session sends the browser, with its id put in as Stripe does.
func successURL(sess *Session) string {
	return strings.ReplaceAll(sess.SuccessURL, "{CHECKOUT_SESSION_ID}", sess.ID)
}

// render writes a page; a page that can't be rendered is logged.
func (s *Server) render(w http.ResponseWriter, status int, p page.Page) {
	if err := page.Render(w, status, p); err != nil {
		s.log.Error("devpay: render page", "error", err)
	}
}
