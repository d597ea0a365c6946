package app

import (
	"context"
	"crypto/rand"

	"library/internal/accounts"
	"library/internal/pii"
)

// logStore is the store as commands use it: the log, its snapshots, and members' data keys.
type logStore interface {
	accounts.Log
	pii.Store
	// FingerprintKey is the installation's secret for keyed payload fingerprints.
	FingerprintKey(ctx context.Context) ([]byte, error)
	memberEvents
}

// personalData is how members' personal data is kept: sealed with their data keys, wrapped
// by the KEKs of PII_KEY (in memory without it, a key made at start, gone with the process, as
// everything else is); and the installation's key of payload fingerprints.
func (a *App) personalData() (*pii.Keyring, error) {
	var keks pii.KEKs
	if a.cfg.PIIKey != "" {
		var err error
		if keks, err = pii.ParseKEKs(a.cfg.PIIKey); err != nil {
			return nil, err
		}
	} else {
		var key [32]byte
		_, _ = rand.Read(key[:])
		keks = pii.KEKs{pii.NewKEK("memory", key)}
	}
	return pii.NewKeyring(keks, a.log), nil
}

// Keyring is the service's keyring of members' data keys, for `library keys rotate`.
func Keyring(cfg Config, store pii.Store) (*pii.Keyring, error) {
	keks, err := pii.ParseKEKs(cfg.PIIKey)
	if err != nil {
		return nil, err
	}
	return pii.NewKeyring(keks, store), nil
}
