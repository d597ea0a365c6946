package accounts

import (
	"context"
	"strings"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/reservations"
	"library/internal/validate"
)

// MaxCardNumberLength is the longest library card number.
const MaxCardNumberLength = 32

// CardAssigned records that the member's library card now has Number; a card they had before
// is no longer theirs. A card number names a card, not a person, as a member id does, so it is
// kept in clear: it is also the name of the stream that keeps it unique (package reservations).
type CardAssigned struct {
	CardNumber string `json:"cardNumber"`
}

// EventType names the event in the log; never rename it.
func (CardAssigned) EventType() string { return "CardAssigned" }

// CardNumber checks a library card number as a scanner or a person typed it, and returns it as
// the library keeps it, or an errs.InvalidRequest naming field (never the value).
//
// A card number is 1 to MaxCardNumberLength letters A to Z, digits and hyphens, the first a
// letter or a digit: what the barcodes printed on cards carry, and what a stream id can hold.
// Letters are kept in capitals, as copies' barcodes are (books.Barcode): "lib-0042" typed at the
// desk is the card the kiosk's scanner reads as "LIB-0042".
func CardNumber(field, s string) (string, error) {
	if s == "" {
		return "", errs.E(errs.InvalidRequest, "%s is required", field)
	}
	if len(s) > MaxCardNumberLength || !isCardStart(s[0]) || strings.IndexFunc(s, notCard) >= 0 {
		return "", errs.E(errs.InvalidRequest,
			"%s must be 1 to %d letters, digits and hyphens, starting with a letter or digit", field, MaxCardNumberLength)
	}
	return strings.ToUpper(s), nil
}

func isCardStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func notCard(r rune) bool {
	return r >= 0x80 || !isCardStart(byte(r)) && r != '-'
}

// AssignCard asks that the member's library card have CardNumber. Its JSON encoding is
// fingerprinted for Idempotency-Keys.
type AssignCard struct {
	CardNumber string `json:"cardNumber"`
}

// Checked checks the number and returns the command with it as the library keeps it.
func (c AssignCard) Checked() (AssignCard, error) {
	n, err := CardNumber("cardNumber", c.CardNumber)
	c.CardNumber = n
	return c, err
}

// Decide records the card; the card the account has already records nothing. That the number
// is nobody else's is the reservation's to say, in the same append (Service.AssignCard).
func (c AssignCard) Decide(a Account) ([]Event, error) {
	if a.Card == c.CardNumber {
		return nil, nil
	}
	return []Event{CardAssigned(c)}, nil
}

// AssignCard gives the member a library card, or moves them to another: the number is reserved
// for their account in the same append (errs.CardTaken when another member holds it), and the
// number they had is released in it, so that it may be given again.
func (s *Service) AssignCard(ctx context.Context, memberID string, c AssignCard, o aggregate.Origin) (aggregate.Result, error) {
	if err := validate.MemberID("memberId", memberID); err != nil {
		return aggregate.Result{}, err
	}
	c, err := c.Checked()
	if err != nil {
		return aggregate.Result{}, err
	}
	var before Account // the state the card was decided on, for Also, which runs after Decide
	decide := guarded(memberID, c.Decide)
	return s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "assignCard", Origin: o, Payload: c,
		Decide: func(a Account) ([]Event, error) {
			before = a
			return decide(a)
		},
		Also: func(ctx context.Context, _ []Event) (aggregate.Also, error) {
			return s.cards.Move(ctx, reservations.Card, accountType.StreamID(memberID), before.Card, c.CardNumber)
		},
	})
}

// CardHolder returns the id of the member who holds a library card now, its number as written
// (CardNumber), or errs.NotFound when nobody does, or the number can't be a card's: a kiosk
// says only "unknown card" either way.
func (s *Service) CardHolder(ctx context.Context, cardNumber string) (memberID string, err error) {
	number, err := CardNumber("cardNumber", cardNumber)
	if err != nil {
		return "", errs.E(errs.NotFound, "no member has this library card")
	}
	owner, err := s.cards.Holder(ctx, reservations.Card, number)
	if err != nil {
		return "", err
	}
	memberID, ok := strings.CutPrefix(owner, accountType.Name+"-")
	if !ok {
		return "", errs.E(errs.NotFound, "no member has this library card")
	}
	return memberID, nil
}

// releaseCard is an erasure's Also: the card of the account it was decided on (before) is
// released in the erasure's append, so that its number may be given to another member.
func (s *Service) releaseCard(memberID string, before *Account) func(context.Context, []Event) (aggregate.Also, error) {
	return func(ctx context.Context, _ []Event) (aggregate.Also, error) {
		if before.Card == "" {
			return aggregate.Also{}, nil
		}
		return s.cards.Move(ctx, reservations.Card, accountType.StreamID(memberID), before.Card, "")
	}
}
