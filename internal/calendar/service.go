package calendar

import (
	"context"

	"library/internal/aggregate"
	"library/internal/aggregate/core"
	"library/internal/aggregate/stack"
)

// Service runs the calendar's commands and reads it, through package aggregate. The zone is
// not its to know: a caller gives the calendar it reads one (Calendar.In).
type Service struct {
	repo *core.Repository[Calendar]
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

// Close closes the library on d; a day closed already records nothing.
func (s *Service) Close(ctx context.Context, d Date, o aggregate.Origin) (aggregate.Result, error) {
	c := CloseDay{Date: d}
	return s.run(ctx, "closeDay", c, c.Validate, c.Decide, o)
}

// Reopen opens d again, unless its weekday is closed every week; a day that is not a closed
// date records nothing.
func (s *Service) Reopen(ctx context.Context, d Date, o aggregate.Origin) (aggregate.Result, error) {
	c := ReopenDay{Date: d}
	return s.run(ctx, "reopenDay", c, c.Validate, c.Decide, o)
}

// SetWeekly sets the weekdays the library is closed every week; an unknown name, or all
// seven, is refused with errs.InvalidRequest.
func (s *Service) SetWeekly(ctx context.Context, c SetWeekly, o aggregate.Origin) (aggregate.Result, error) {
	return s.run(ctx, "setWeekly", c, c.Validate, c.Decide, o)
}

// run runs one command on the calendar's stream.
func (s *Service) run(ctx context.Context, name string, payload any, validate func() error,
	decide func(Calendar) ([]Event, error), o aggregate.Origin) (aggregate.Result, error) {
	return s.told(s.repo.Execute(ctx, ID, aggregate.Command[Calendar]{
		Name: name, Origin: o, Payload: payload, Validate: validate,
		Decide: decide,
	}))
}

// Get returns the calendar as the log holds it, with no zone; the caller must not change it
// (its map is shared with other readers): its With methods make changed copies.
func (s *Service) Get(ctx context.Context) (Calendar, error) {
	loaded, err := s.repo.Load(ctx, ID)
	if err != nil {
		return Calendar{}, err
	}
	return loaded.State, nil
}
