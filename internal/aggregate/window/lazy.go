package window

import (
	"context"
	"sync/atomic"
)

// LazyFingerprinter is the Fingerprinter of a key that is asked for at the first payload, and
// kept once it answered: a key kept in the database is not read before it is needed.
type LazyFingerprinter struct {
	key func(ctx context.Context) ([]byte, error) // nil: no key
	fp  atomic.Pointer[Fingerprinter]
}

// NewLazyFingerprinter returns the Fingerprinter of the key that key gives; nil: no key.
func NewLazyFingerprinter(key func(ctx context.Context) ([]byte, error)) *LazyFingerprinter {
	return &LazyFingerprinter{key: key}
}

// Get returns the Fingerprinter, asking for its key if it has not answered yet.
func (l *LazyFingerprinter) Get(ctx context.Context) (*Fingerprinter, error) {
	if f := l.fp.Load(); f != nil {
		return f, nil
	}
	var key []byte
	if l.key != nil {
		var err error
		if key, err = l.key(ctx); err != nil {
			return nil, err
		}
	}
	l.fp.CompareAndSwap(nil, NewFingerprinter(key))
	return l.fp.Load(), nil
}
