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
	return s.repo.Execute(ctx, ID, aggregate.Command[Calendar]{
		Name: name, Origin: o, Payload: payload, Validate: validate,
		Decide: decide,
	})
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
