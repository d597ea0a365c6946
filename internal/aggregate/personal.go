package aggregate

import "context"

// PersonalEvent is an event with personal values (a member's name, their email): the log keeps
// them sealed with the data key of the aggregate's owner, so that deleting that key erases them
// wherever the event is copied. Each method returns a new event, the receiver unchanged.
type PersonalEvent interface {
	Event
	// SealPersonal returns the event with each personal value replaced by what seal makes of it.
	SealPersonal(seal func(string) (string, error)) (Event, error)
	// OpenPersonal returns the event with each personal value replaced by what open makes of it.
	OpenPersonal(open func(string) (string, error)) (Event, error)
}

// Cipher seals and opens the personal values of one owner (package pii's Keyring). ad binds a
// sealed value to where it is: its stream and its event's version.
type Cipher interface {
	// Sealer seals owner's values; with create, it makes owner's data key when there is none,
	// otherwise it returns nil then. It returns nil for an owner who was erased, who never gets
	// a key again, however late a writer asks.
	Sealer(ctx context.Context, owner string, create bool) (func(ad, plaintext string) (string, error), error)
	// Opener opens owner's values: without owner's key, each sealed value opens as erased.
	Opener(ctx context.Context, owner string) (func(ad, value string) (string, error), error)
	// Forget drops owner's data key from this process's memory: their erasure was just
	// committed, and the key deleted with it.
	Forget(owner string)
}
