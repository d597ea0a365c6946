package circulation

import (
	"context"

	"library/internal/aggregate"
	"library/internal/aggregate/core"
	"library/internal/aggregate/stack"
	"library/internal/errs"
)

// Service sets and reads the library's one table through package aggregate.
type Service struct {
	repo *core.Repository[Rules]
	// changed is told after each command that recorded something (OnChange).
	changed func()
}

// OnChange has the service call f after each command that recorded something, on this
// replica: a reader that keeps what it read (circulation.Reader) forgets it. It is set once,
// before the service is used.
func (s *Service) OnChange(f func()) { s.changed = f }

// told calls the OnChange function when res recorded something.
func (s *Service) told(res aggregate.Result, err error) (aggregate.Result, error) {
	if err == nil && len(res.Events) > 0 && s.changed != nil {
		s.changed()
	}
	return res, err
}

// NewService returns a Service on log.
func NewService(log aggregate.Log, opts aggregate.Options) *Service {
	return &Service{repo: core.New(stack.Store(log, Type(), opts), Type(), opts)}
}

// setPayload is what a SetRules is fingerprinted by: the table and the version it was set on,
// so that a key sent again with another If-Match is seen as another command.
type setPayload struct {
	SetRules
	IfVersion int64 `json:"ifVersion"`
}

// Set makes c's rows the table, when the table is still at ifVersion (Rules.Version, the
// version the client read): errs.PreconditionFailed otherwise, since the client decided its
// table on one that is no longer the library's. A table that is not valid is refused with
// errs.InvalidRequest, naming the row and the field, before anything is read. The same table
// again records nothing.
func (s *Service) Set(ctx context.Context, c SetRules, ifVersion int64, o aggregate.Origin) (aggregate.Result, error) {
	return s.told(s.repo.Execute(ctx, RulesID, aggregate.Command[Rules]{
		Name: "setRules", Origin: o, Payload: setPayload{SetRules: c, IfVersion: ifVersion},
		Validate: c.Validate,
		Decide: func(r Rules) ([]Event, error) {
			if r.Version != ifVersion {
				return nil, errs.E(errs.PreconditionFailed,
					"the rules are at version %d, not %d: someone changed them since you read them; read them again", r.Version, ifVersion).
					With("version", r.Version)
			}
			return c.Decide(r)
		},
	}))
}

// Get returns the table and its version; the empty table at version 0 before one was set.
func (s *Service) Get(ctx context.Context) (Rules, error) {
	loaded, err := s.repo.Load(ctx, RulesID)
	if err != nil {
		return Rules{}, err
	}
	return loaded.State, nil
}
