package terminals

import (
	"context"
	"crypto/rand"
	"sync"
	"time"

	"library/internal/aggregate"
	"library/internal/aggregate/core"
	"library/internal/aggregate/stack"
	"library/internal/errs"
	"library/internal/secrethash"
)

// registryID is the aggregate id of the one registry: its stream is terminals-registry.
const registryID = "registry"

// Type is the registry's aggregate type. Its name prefixes the stream id
// ("terminals-registry"), and its events' names are stored data: never rename them. It has a
// Clone, so the registry is kept in memory and a login reads only what came after it; no
// Snapshot (see the package comment).
func Type() aggregate.Type[Registry] {
	return aggregate.Type[Registry]{
		Name:  "terminals",
		New:   NewRegistry,
		Apply: Apply,
		Clone: Clone,
		Events: []aggregate.Codec{
			aggregate.EventCodec[TerminalAdded](),
			aggregate.EventCodec[TerminalRemoved](),
		},
	}
}

// StreamID is the id of the registry's stream.
func StreamID() string { return Type().StreamID(registryID) }

// maxPasswordLength bounds the password a login may send: more than any Add makes, and little
// enough that hashing it costs what hashing any other does.
const maxPasswordLength = 256

// dummyHash is the hash an unknown name's login is checked against, made once per process with
// the parameters new hashes are made with, so that it costs what checking a terminal's does.
var dummyHash = sync.OnceValues(func() (string, error) {
	return secrethash.Hash(rand.Text(), secrethash.Default)
})

// unauthorized is Login's one refusal, for an unknown name and a wrong password alike.
func unauthorized() error {
	return errs.E(errs.Unauthorized, "unknown terminal or wrong password")
}

// Service runs the registry's commands and checks logins.
type Service struct {
	repo *core.Repository[Registry]
	now  func() time.Time
	// gate bounds the hashes checked at once (WithGate); nil: no bound.
	gate *secrethash.Gate
}

// NewService returns a Service on log; now is the clock of the times terminals are added and
// removed. It makes the dummy hash of unknown names' logins now, if no Service of the process
// has, so that the first such login costs what the others do.
func NewService(log aggregate.Log, opts aggregate.Options, now func() time.Time) *Service {
	_, _ = dummyHash()
	return &Service{repo: core.New(stack.Store(log, Type(), opts), Type(), opts), now: now}
}

// Add adds the terminal name with a new random password, which it returns: the one time it is
// shown. The registry keeps its hash only. A name added already is errs.TerminalExists; a
// command id seen before is refused the same way, since the password its first run made can't
// be shown again.
func (s *Service) Add(ctx context.Context, name string, o aggregate.Origin) (string, error) {
	c, err := AddTerminal{Name: name}.Checked()
	if err != nil {
		return "", err
	}
	password, hash, err := newPassword()
	if err != nil {
		return "", err
	}
	res, err := s.repo.Execute(ctx, registryID, aggregate.Command[Registry]{
		Name: "addTerminal", Origin: o, Payload: c,
		Decide: func(r Registry) ([]Event, error) { return c.Decide(r, hash, s.now()) },
	})
	if err != nil {
		return "", err
	}
	if res.Replayed || !res.Recorded() {
		return "", errs.E(errs.TerminalExists, "terminal %s was added by this command before, and its password shown then; to give it a new one, remove it and add it again", c.Name)
	}
	return password, nil
}

// newPassword returns a fresh random password and its hash. A password is crypto/rand's Text:
// 26 characters of base32 (capitals and the digits 2 to 7), 130 bits, which a kiosk's settings
// screen takes and SIP2 carries as they are.
func newPassword() (string, PasswordHash, error) {
	password := rand.Text()
	hash, err := secrethash.Hash(password, secrethash.Default)
	if err != nil {
		return "", "", err
	}
	return password, PasswordHash(hash), nil
}

// WithGate has logins check their hashes through g, shared with whatever else of the process
// hashes (members' PINs), and returns the service.
func (s *Service) WithGate(g *secrethash.Gate) *Service {
	s.gate = g
	return s
}

// Remove removes the terminal name: it may no longer log in. A name the registry does not hold
// is errs.NotFound.
func (s *Service) Remove(ctx context.Context, name string, o aggregate.Origin) error {
	c, err := RemoveTerminal{Name: name}.Checked()
	if err != nil {
		return err
	}
	_, err = s.repo.Execute(ctx, registryID, aggregate.Command[Registry]{
		Name: "removeTerminal", Origin: o, Payload: c,
		Decide: func(r Registry) ([]Event, error) { return c.Decide(r, s.now()) },
	})
	return err
}

// List returns the terminals, by name.
func (s *Service) List(ctx context.Context) ([]Terminal, error) {
	loaded, err := s.repo.Load(ctx, registryID)
	if err != nil {
		return nil, err
	}
	return loaded.State.Terminals(), nil
}

// Login checks a terminal's name and password: nil when the registry holds the name with that
// password, errs.Unauthorized otherwise, whatever is wrong (a name it does not hold, or can't
// be, a wrong password, one too long to be any), after checking a hash in every case. Only a
// registry that can't be read is another error, whatever the name.
func (s *Service) Login(ctx context.Context, name, password string) error {
	loaded, err := s.repo.Load(ctx, registryID)
	if err != nil {
		return err
	}
	dummy, err := dummyHash()
	if err != nil {
		return err
	}
	hash, known := PasswordHash(dummy), false
	if checked, err := CheckName(name); err == nil && len(password) <= maxPasswordLength {
		if h, ok := loaded.State.hashOf(checked); ok {
			hash, known = h, true
		}
	}
	if len(password) > maxPasswordLength {
		password = password[:maxPasswordLength] // checked all the same, against the dummy hash
	}
	leave, err := s.gate.Enter(ctx)
	if err != nil {
		return err
	}
	match, err := secrethash.Verify(password, string(hash))
	leave()
	if err != nil || !match || !known {
		return unauthorized()
	}
	return nil
}
