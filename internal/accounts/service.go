package accounts

import (
	"context"

	"library/internal/aggregate"
	"library/internal/errs"
)

// Type is the Account aggregate type. Its name prefixes stream ids ("account-<memberId>"):
// never rename it.
func Type() aggregate.Type[Account] {
	return aggregate.Type[Account]{
		Name:  "account",
		New:   NewAccount,
		Apply: Apply,
		Clone: Clone,
		Events: []aggregate.Codec{
			aggregate.EventCodec[AccountOpened](),
			aggregate.EventCodec[ContactChanged](),
			aggregate.EventCodec[FineCharged](),
			aggregate.EventCodec[PaymentReceived](),
		},
	}
}

// Service runs Account commands and reads accounts.
type Service struct {
	repo *aggregate.Repository[Account]
}

// NewService returns a Service on log.
func NewService(log aggregate.Log, opts aggregate.Options) *Service {
	return &Service{repo: aggregate.NewRepository(log, Type(), opts)}
}

// SetContact records a member's name and email address.
func (s *Service) SetContact(ctx context.Context, memberID string, c SetContact, o aggregate.Origin) (aggregate.Result, error) {
	return s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "setContact", Origin: o, Payload: c, Validate: c.Validate, Decide: c.Decide,
	})
}

// ChargeFine charges a fine.
func (s *Service) ChargeFine(ctx context.Context, memberID string, c ChargeFine, o aggregate.Origin) (aggregate.Result, error) {
	return s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "chargeFine", Origin: o, Payload: c, Validate: c.Validate, Decide: c.Decide,
	})
}

// Pay takes a payment.
func (s *Service) Pay(ctx context.Context, memberID string, c Pay, o aggregate.Origin) (aggregate.Result, error) {
	return s.repo.Execute(ctx, memberID, aggregate.Command[Account]{
		Name: "pay", Origin: o, Payload: c, Validate: c.Validate, Decide: c.Decide,
	})
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
