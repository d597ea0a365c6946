package titles

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"strings"
	"time"

	"library/internal/aggregate"
	"library/internal/aggregate/core"
	"library/internal/aggregate/stack"
	"library/internal/errs"
	"library/internal/reservations"
)

// Type is the Title aggregate type. Its name prefixes stream ids ("title-<id>"): never rename it.
func Type() aggregate.Type[Title] {
	return aggregate.Type[Title]{
		Name:     "title",
		New:      func() Title { return Title{} },
		Apply:    Apply,
		Clone:    func(t Title) Title { return t }, // Apply replaces lists, never changes them
		Weigh:    weigh,
		Snapshot: snapshotCodec(),
		Events: []aggregate.Codec{
			aggregate.EventCodec[TitleAdded](),
			aggregate.EventCodec[TitleChanged](),
			aggregate.EventCodec[CopyAdded](),
			aggregate.EventCodec[TitleHoldPlaced](),
			aggregate.EventCodec[TitleHoldCancelled](),
			aggregate.EventCodec[HoldTrapped](),
			aggregate.EventCodec[TrapExpired](),
			aggregate.EventCodec[TrapFulfilled](),
			aggregate.EventCodec[CopyLent](),
			aggregate.EventCodec[CopyShelved](),
			aggregate.EventCodec[CopyMissing](),
		},
	}
}

// IDFor is the id of the title that a caller adds without choosing one, under an
// Idempotency-Key: the same key from the same caller (their issuer and subject) makes the same
// id, so a retry finds the title its first attempt added, and answers with that attempt's result.
func IDFor(issuer, subject, idempotencyKey string) string {
	sum := sha256.Sum256([]byte("title\x00" + issuer + "\x00" + subject + "\x00" + idempotencyKey))
	return "t_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:15]))
}

// Service runs Title commands and reads titles.
type Service struct {
	repo         *core.Repository[Title]
	now          func() time.Time
	reservations *reservations.Service
	holds        HoldPolicy
	holders      Holders
	titleRules   TitleRules
}

// NewService returns a Service on log. now is the clock (a year of publication may be next
// year's at the latest); reservations keeps ISBNs unique, on the same log.
func NewService(log aggregate.Log, opts aggregate.Options, now func() time.Time, reservations *reservations.Service) *Service {
	return &Service{repo: core.New(stack.Store(log, Type(), opts), Type(), opts), now: now, reservations: reservations}
}

// Add adds a title to the catalogue, and reserves its ISBN for it in the same append.
func (s *Service) Add(ctx context.Context, c AddTitle, o aggregate.Origin) (aggregate.Result, error) {
	c, err := c.Checked(s.now())
	if err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, c.ID, aggregate.Command[Title]{
		Name: "addTitle", Origin: o, Payload: c,
		Decide: c.Decide,
		Also: func(ctx context.Context, _ []Event) (aggregate.Also, error) {
			return s.reservations.Move(ctx, reservations.ISBN, Type().StreamID(c.ID), "", deref(c.ISBN))
		},
	})
}

// Change changes a title's record. A change of its ISBN reserves the new one and releases the
// old one in the same append; a removal releases it.
func (s *Service) Change(ctx context.Context, titleID string, c ChangeTitle, o aggregate.Origin) (aggregate.Result, error) {
	if err := validateID(titleID); err != nil {
		return aggregate.Result{}, err
	}
	c, err := c.Checked(s.now())
	if err != nil {
		return aggregate.Result{}, err
	}
	var before Title // the state the change was decided on, for Also, which runs after Decide
	return s.repo.Execute(ctx, titleID, aggregate.Command[Title]{
		Name: "changeTitle", Origin: o, Payload: c,
		Decide: func(t Title) ([]Event, error) {
			before = t
			return c.Decide(t)
		},
		Also: func(ctx context.Context, decided []Event) (aggregate.Also, error) {
			after, changed := isbnAfter(decided)
			if !changed {
				return aggregate.Also{}, nil
			}
			return s.reservations.Move(ctx, reservations.ISBN, Type().StreamID(titleID), before.ISBN, after)
		},
	})
}

// Get returns a title and its stream version, or errs.NotFound.
func (s *Service) Get(ctx context.Context, titleID string) (Title, int64, error) {
	if err := validateID(titleID); err != nil {
		return Title{}, 0, err
	}
	loaded, err := s.repo.Load(ctx, titleID)
	if err != nil {
		return Title{}, 0, err
	}
	if !loaded.State.Added {
		return Title{}, 0, errs.E(errs.NotFound, "there is no title %s", titleID)
	}
	return loaded.State, loaded.Version, nil
}
