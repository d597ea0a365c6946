package kiosk

import (
	"errors"
	"strings"

	"library/internal/errs"
	"library/internal/sip2"
)

// refusal is why a message was not done: its outcome and the screen message (AF) a member reads.
type refusal struct {
	outcome string
	screen  string
}

func refuse(outcome, screen string) *refusal { return &refusal{outcome: outcome, screen: screen} }

// failed is the refusal of a message the service could not do (the store out of reach): the
// member is asked to try again, and the cause goes to the log, not the screen.
func failed(s *session, what string, err error) *refusal {
	if outcomeOf(err) == outcomeRefused {
		return refuse(outcomeRefused, screenFor(err))
	}
	s.srv.opts.Logger.Error("sip: "+what+" failed", "terminal", s.terminal, "error", err)
	return refuse(outcomeFailed, "Sorry, something went wrong: please try again, or see a librarian.")
}

// patronAnswer is a patron answer (24, 64) for a card or PIN that did not show a member: valid
// patron (BL) says whether the card is known, valid password (CQ) that the PIN was not right.
func (r *refusal) patronAnswer(m sip2.Message, p patron) sip2.Message {
	if r.outcome == outcomeFailed {
		return m.Add("AF", r.screen)
	}
	return m.Add("BL", yesNo(p.memberID != "")).Add("CQ", "N").Add("AF", r.screen)
}

// failedAnswer is answer with the refusal's screen message.
func failedAnswer(answer sip2.Message, r *refusal) sip2.Message { return answer.Add("AF", r.screen) }

// screens are what a member reads at the kiosk when a rule says no: the same rules as the HTTP
// API's, said for the person at the machine.
var screens = map[errs.Code]string{
	errs.NotFound:             "This item is not known here: please see a librarian.",
	errs.BookOnHold:           "This item is held for another member: please leave it at the desk.",
	errs.BookAlreadyLent:      "This item is on loan to someone else: please see a librarian.",
	errs.LoanLimitReached:     "You have as many items as you may borrow at once.",
	errs.MemberBlocked:        "Your account has fines to pay before you borrow more.",
	errs.RenewalLimitReached:  "This item has been renewed as many times as it may be.",
	errs.HoldsWaiting:         "Someone is waiting for this item: it cannot be renewed.",
	errs.LoanNotCurrent:       "This item is not on loan to you.",
	errs.AlreadyHeld:          "You already have a hold on this title.",
	errs.HoldQueueFull:        "Too many members wait for this title already.",
	errs.BookAvailable:        "This item is on the shelf: you can borrow it now.",
	errs.TitleAvailable:       "A copy of this title is on the shelf: you can borrow it now.",
	errs.NothingToPay:         "There is nothing to pay.",
	errs.Gone:                 "This account is closed: please see a librarian.",
	errs.IdempotencyKeyReused: "This transaction was already sent with other details: please see a librarian.",
	errs.NotLendable:          "This item is for use in the library: it is not lent.",
	errs.HoldsNotAllowed:      "This item cannot be held.",
	errs.BookMissing:          "This item is recorded as missing: please bring it to the desk.",
}

// screenFor is the screen message of a refusal.
func screenFor(err error) string {
	if s, ok := screens[errs.CodeOf(err)]; ok {
		if rule := ruleOf(err); rule != "" {
			return strings.TrimSuffix(s, ".") + rule + "."
		}
		return s
	}
	return "This cannot be done here: please see a librarian."
}

// ruleOf is, for a refusal by a limit of the circulation rules, the rule it names ("3 dvd loans
// at once for adult"), as the screen adds it; "" for any other.
func ruleOf(err error) string {
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.LoanLimitReached {
		return ""
	}
	if _, rule, ok := strings.Cut(e.Detail, "the rules allow "); ok {
		return " (" + rule + ")"
	}
	return ""
}
