package accounts

import (
	"context"

	"library/internal/aggregate"
	"library/internal/aggregate/core"
	"library/internal/aggregate/stack"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/reservations"
	"library/internal/validate"
)

// Type is the Account aggregate type. Its name prefixes stream ids ("account-<memberId>"):
// never rename it.
func Type() aggregate.Type[Account] {
	return aggregate.Type[Account]{
		Name:     "account",
		New:      NewAccount,
		Apply:    Apply,
		Clone:    Clone,
		Weigh:    weigh,
		Snapshot: snapshotCodec(),
		Personal: func(a Account) bool { return a.Name != "" || a.Email != "" || a.pin.hash != "" },
		Events: []aggregate.Codec{
			aggregate.EventCodec[MemberErased](),
			aggregate.EventCodec[AccountOpened](),
			aggregate.EventCodec[ContactChanged](),
			aggregate.EventCodec[FineCharged](),
			aggregate.EventCodec[PaymentReceived](),
			aggregate.EventCodec[LoanOpened](),
			aggregate.EventCodec[LoanClosed](),
			aggregate.EventCodec[CheckoutStarted](),
			aggregate.EventCodec[CheckoutEnded](),
			aggregate.EventCodec[RefundDue](),
			aggregate.EventCodec[RefundIssued](),
			aggregate.EventCodec[RefundFailed](),
			aggregate.EventCodec[CardAssigned](),
			aggregate.EventCodec[GroupSet](),
			aggregate.EventCodec[PINSet](),
			aggregate.EventCodec[PINRefused](),
			aggregate.EventCodec[PINAccepted](),
			aggregate.EventCodec[ReplacementCharged](),
			aggregate.EventCodec[ReplacementCredited](),
		},
	}
}

// Service runs Account commands and reads accounts.
type Service struct {
	repo *core.Repository[Account]
	log  Log
	// forget drops a member's data key from the memory of the keyring that opens their values
	// (pii.Keyring.Forget), when it keeps any.
	forget func(owner string)
	// limits are the rules members borrow under; zero: none.
	limits Limits
	// cards keeps library card numbers unique, in the log.
	cards *reservations.Service
	// pins is how PINs are kept and checked.
	pins PINPolicy
}

// Limit sets the rules members borrow under (MAX_LOANS, BLOCK_AT). Set it before the service is
// used.
func (s *Service) Limit(l Limits) *Service {
	s.limits = l
	return s
}

// SnapshotDeleter drops a stream's snapshot (eventstore.Snapshots).
type SnapshotDeleter interface {
	DeleteSnapshot(ctx context.Context, streamID string) error
}

// KeyDeleter deletes a member's data key (member_keys) on its own, outside an erasure's append.
type KeyDeleter interface {
	// DeleteDataKey deletes owner's data key, if they have one.
	DeleteDataKey(ctx context.Context, owner string) error
}

// Log is what accounts keep their streams in: the log, with its snapshots and members' data
// keys.
type Log interface {
	aggregate.Log
	SnapshotDeleter
	KeyDeleter
}

// NewService returns a Service on log.
func NewService(log Log, opts aggregate.Options) *Service {
	s := &Service{repo: core.New(stack.Store(log, Type(), opts), Type(), opts), log: log, forget: func(string) {},
		cards: reservations.NewService(log, opts), pins: PINPolicy{}.withDefaults()}
	if opts.Cipher != nil {
		s.forget = opts.Cipher.Forget
	}
	return s
}

// SetContact records a member's name and email address.
func (s *Service) SetContact(ctx context.Context, memberID string, c SetContact, o aggregate.Origin) (aggregate.Result, error) {
	if err := validate.MemberID("memberId", memberID); err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "setContact", Origin: o, Payload: c, Validate: c.Validate, Decide: guarded(memberID, c.Decide),
	})
}

// ChargeFine charges a fine.
func (s *Service) ChargeFine(ctx context.Context, memberID string, c ChargeFine, o aggregate.Origin) (aggregate.Result, error) {
	if err := validate.MemberID("memberId", memberID); err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "chargeFine", Origin: o, Payload: c, Validate: c.Validate, Decide: guarded(memberID, c.Decide),
	})
}

// Pay takes a payment.
func (s *Service) Pay(ctx context.Context, memberID string, c Pay, o aggregate.Origin) (aggregate.Result, error) {
	if err := validate.MemberID("memberId", memberID); err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "pay", Origin: o, Payload: c, Validate: c.Validate, Decide: guarded(memberID, c.Decide),
	})
}

// Erase forgets a member: it records MemberErased and deletes the member's data key in the same
// transaction, so that their name, email and fines' reasons, sealed in the log, can't be read
// again; then it drops the account's snapshot, which may hold their name and email too. The account must be settled.
// Their library card is released in the same append, so that its number may be given again;
// their PIN's hash, sealed, is shredded with the key.
//
// Erasing an erased member again records nothing, but deletes their data key again: a restore
// of a backup taken before the erasure brings the key back to member_keys, and the runbook
// (docs/reliability.md) erases such members again.
func (s *Service) Erase(ctx context.Context, memberID string, o aggregate.Origin) (aggregate.Result, error) {
	if err := validate.MemberID("memberId", memberID); err != nil {
		return aggregate.Result{}, err
	}
	var before Account // the state the erasure was decided on, for Also, which runs after Decide
	result, err := s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "erase", Origin: o, Payload: Erase{}, Forget: true,
		Decide: func(a Account) ([]Event, error) {
			before = a
			return Erase{}.Decide(a)
		},
		Also: s.releaseCard(memberID, &before),
	})
	if err != nil {
		return result, err
	}
	if !result.Recorded() || result.Replayed {
		// Nothing was appended by this call (Erase decides nothing for an erased account, and a
		// replay appends nothing), so no append deleted the key: the account was erased before.
		if err := s.log.DeleteDataKey(ctx, memberID); err != nil {
			return result, err
		}
		s.forget(memberID)
	}
	return result, s.log.DeleteSnapshot(ctx, Type().StreamID(memberID))
}

// Get returns an account and its stream version, or errs.NotFound when nothing has happened to
// it yet.
func (s *Service) Get(ctx context.Context, memberID string) (Account, int64, error) {
	loaded, err := s.repo.Load(ctx, memberID)
	if err != nil {
		return Account{}, 0, err
	}
	if loaded.Version == 0 {
		return Account{}, 0, errs.E(errs.NotFound, "there is no account for member %s", memberID)
	}
	return loaded.State, loaded.Version, nil
}

// History returns the events of a member's account below version before (0: from the last),
// at most limit of them read, newest first, with what each was recorded with: who did it. next
// is the before of the page that follows, 0 when there is none. Markers of repeated commands
// that changed nothing are not listed. An account with no events is errs.NotFound.
func (s *Service) History(ctx context.Context, memberID string, before int64, limit int) (events []eventstore.Event, next int64, err error) {
	if before <= 0 {
		loaded, err := s.repo.Load(ctx, memberID) // kept in memory mostly: no read of the whole stream
		if err != nil {
			return nil, 0, err
		}
		if loaded.Version == 0 {
			return nil, 0, errs.E(errs.NotFound, "there is no account for member %s", memberID)
		}
		before = loaded.Version + 1
	}
	stored, err := s.log.ReadStream(ctx, Type().StreamID(memberID), max(0, before-1-int64(limit)))
	if err != nil {
		return nil, 0, err
	}
	events = make([]eventstore.Event, 0, len(stored))
	for i := len(stored) - 1; i >= 0; i-- {
		e := stored[i]
		if e.Version >= before {
			continue
		}
		if e.Type != aggregate.NothingChanged {
			events = append(events, e)
		}
		next = e.Version
	}
	if next <= 1 {
		next = 0
	}
	return events, next, nil
}

// Everything returns a member's account stream whole, with each event decoded and its
// personal values opened (nil for a marker of a repeated command): for an export.
func (s *Service) Everything(ctx context.Context, memberID string) ([]eventstore.Event, []aggregate.Event, error) {
	stored, err := s.log.ReadStream(ctx, Type().StreamID(memberID), 0)
	if err != nil {
		return nil, nil, err
	}
	opened, err := s.repo.Present(ctx, memberID, stored)
	return stored, opened, err
}

// Present decodes a member's stored events, personal values opened (or erased).
func (s *Service) Present(ctx context.Context, memberID string, stored []eventstore.Event) ([]aggregate.Event, error) {
	return s.repo.Present(ctx, memberID, stored)
}
