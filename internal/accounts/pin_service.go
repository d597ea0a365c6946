package accounts

import (
	"context"
	"slices"
	"time"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/secrethash"
	"library/internal/validate"
)

// PINPolicy is how members' PINs are kept and checked. Zero fields take the defaults.
type PINPolicy struct {
	// MaxTries is how many wrong PINs in a row lock a card's PIN (default 5).
	MaxTries int
	// Lockout is how long it stays locked (default 15 minutes).
	Lockout time.Duration
	// Now is the clock tries are timed by (default time.Now).
	Now func() time.Time
	// Hash is the cost of new PINs' hashes (default secrethash.Default); a PIN's hash keeps the
	// cost it was made with.
	Hash secrethash.Params
	// Gate bounds the PIN hashes made and checked at once, shared with whatever else of the
	// process hashes (terminals' logins); nil lets every one run at once.
	Gate *secrethash.Gate
}

// Defaults of PINPolicy.
const (
	DefaultPINTries   = 5
	DefaultPINLockout = 15 * time.Minute
)

// withDefaults is p with its zero fields set to the defaults.
func (p PINPolicy) withDefaults() PINPolicy {
	if p.MaxTries <= 0 {
		p.MaxTries = DefaultPINTries
	}
	if p.Lockout <= 0 {
		p.Lockout = DefaultPINLockout
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	if p.Hash == (secrethash.Params{}) {
		p.Hash = secrethash.Default
	}
	return p
}

// WithPINs sets how members' PINs are kept and checked. Set it before the service is used.
func (s *Service) WithPINs(p PINPolicy) *Service {
	s.pins = p.withDefaults()
	return s
}

// SetPIN sets the member's PIN for self-check. The PIN is hashed here, before the command runs,
// and only its hash is recorded (PINSet, sealed); the command's payload, fingerprinted for its
// Idempotency-Key, holds no trace of it. A retry under the same key is answered with the first
// answer only when it carries the same PIN: with another, the key is refused
// (errs.IdempotencyKeyReused), as a key reused with another payload is. The answer never holds
// the hash (Shown).
func (s *Service) SetPIN(ctx context.Context, memberID string, c SetPIN, o aggregate.Origin) (aggregate.Result, error) {
	if err := validate.MemberID("memberId", memberID); err != nil {
		return aggregate.Result{}, err
	}
	if err := c.Validate(); err != nil {
		return aggregate.Result{}, err
	}
	leave, err := s.pins.Gate.Enter(ctx)
	if err != nil {
		return aggregate.Result{}, err
	}
	hash, err := secrethash.Hash(c.PIN, s.pins.Hash)
	leave()
	if err != nil {
		return aggregate.Result{}, err
	}
	result, err := s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "setPIN", Origin: o, Payload: c, Decide: guarded(memberID, setPIN{hash: hash}.Decide),
	})
	if err != nil {
		return result, err
	}
	if result.Replayed {
		if err := samePIN(result, c.PIN); err != nil {
			return aggregate.Result{}, err
		}
	}
	// A copy: the events may be shared with the answers of the same command's repeats, sent
	// at once, which read the hash in them (samePIN).
	result.Events = slices.Clone(result.Events)
	for i, e := range result.Events {
		result.Events[i].Data = Shown(e.Data)
	}
	return result, nil
}

// samePIN checks that the first run of a replayed SetPIN set pin.
func samePIN(first aggregate.Result, pin string) error {
	for _, e := range first.Events {
		set, ok := e.Data.(PINSet)
		if !ok {
			continue
		}
		same, err := secrethash.Verify(pin, set.Hash)
		if err != nil {
			return errs.E(errs.Gone, "this member's account was erased") // the hash opens as erased
		}
		if !same {
			return errs.E(errs.IdempotencyKeyReused,
				`this Idempotency-Key was first used for the command "setPIN" on this stream with another payload`)
		}
	}
	return nil
}

// CheckPIN checks a PIN a kiosk was given for a member's card: nil when it is theirs,
// errs.PINInvalid when it is not or they have none (or no account, or were erased), and
// errs.PINLocked while their PIN is locked after too many wrong ones, when it is not checked at
// all. Every wrong PIN is recorded on the account (PINRefused), so that tries on every replica
// count towards one lockout.
//
// Every call is a try of its own: o's command id is not used, since an answer replayed to a
// resent message could let another PIN in, and a wrong PIN sent twice is two tries.
func (s *Service) CheckPIN(ctx context.Context, memberID, pin string, o aggregate.Origin) error {
	if validate.MemberID("memberId", memberID) != nil {
		return errs.E(errs.PINInvalid, "invalid")
	}
	o.CommandID = ""
	right := rightPIN(pin)
	leave, err := s.pins.Gate.Enter(ctx) // the check of the hash is in the decision
	if err != nil {
		return err
	}
	defer leave()
	result, err := s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "checkPIN", Origin: o, Payload: struct{}{}, // no PIN: see SetPIN
		Decide: TryPIN{At: s.pins.Now(), MaxTries: s.pins.MaxTries, Lockout: s.pins.Lockout, Right: right}.Decide,
	})
	if err != nil {
		return err
	}
	for _, e := range result.Events {
		if _, refused := e.Data.(PINRefused); refused {
			return errs.E(errs.PINInvalid, "invalid")
		}
	}
	return nil
}

// rightPIN is TryPIN.Right for pin: whether pin is the one a hash is of. A command decided again
// after a conflict asks again, about the same hash most often: the answer is kept, so that the
// slow hash is computed once per PIN set. A PIN that is not 4 to 8 digits is no member's, and
// is wrong without being hashed.
func rightPIN(pin string) func(hash string) bool {
	checked := map[string]bool{}
	return func(hash string) bool {
		if !wellFormedPIN(pin) {
			return false
		}
		if right, ok := checked[hash]; ok {
			return right
		}
		right, err := secrethash.Verify(pin, hash)
		right = right && err == nil
		checked[hash] = right
		return right
	}
}
