package pgstore

import (
	"context"
	"crypto/rand"
	"errors"

	"github.com/jackc/pgx/v5"

	"library/internal/eventstore"
	"library/internal/pii"
)

var _ pii.Store = (*Postgres)(nil)

// An erased member's row in member_keys holds no key: an empty kek_id (no KEK has an empty id)
// and nothing wrapped. It stays, so that the member is never given a key again.
const (
	erasedKEKID = `''`
	// eraseDataKeySQL deletes owner's data key and marks them erased.
	eraseDataKeySQL = `
INSERT INTO member_keys (owner, kek_id, wrapped) VALUES ($1, ` + erasedKEKID + `, '')
ON CONFLICT (owner) DO UPDATE SET kek_id = excluded.kek_id, wrapped = excluded.wrapped`
)

// DataKey implements pii.Store.
func (p *Postgres) DataKey(ctx context.Context, owner string) (pii.WrappedKey, error) {
	var k pii.WrappedKey
	err := p.pool.QueryRow(ctx, `SELECT kek_id, wrapped FROM member_keys WHERE owner = $1 AND kek_id <> `+erasedKEKID, owner).
		Scan(&k.KEKID, &k.Wrapped)
	if errors.Is(err, pgx.ErrNoRows) {
		return pii.WrappedKey{}, pii.ErrNoKey
	}
	if err != nil {
		return pii.WrappedKey{}, translate(ctx, err)
	}
	return k, nil
}

// addDataKeySQL keeps a member's first key; when two replicas race, the loser reads the
// winner's. An erased member's row is read back as it is: no key.
const addDataKeySQL = `
WITH added AS (
	INSERT INTO member_keys (owner, kek_id, wrapped) VALUES ($1, $2, $3)
	ON CONFLICT (owner) DO NOTHING RETURNING kek_id, wrapped
)
SELECT kek_id, wrapped FROM added UNION ALL SELECT kek_id, wrapped FROM member_keys WHERE owner = $1 LIMIT 1`

// AddDataKey implements pii.Store: an erased member gets no key.
func (p *Postgres) AddDataKey(ctx context.Context, owner string, k pii.WrappedKey) (pii.WrappedKey, error) {
	for {
		var kept pii.WrappedKey
		err := p.pool.QueryRow(ctx, addDataKeySQL, owner, k.KEKID, k.Wrapped).Scan(&kept.KEKID, &kept.Wrapped)
		if errors.Is(err, pgx.ErrNoRows) && ctx.Err() == nil {
			continue // the other insert was not visible to this statement's snapshot: ask again
		}
		if err != nil {
			return pii.WrappedKey{}, translate(ctx, err)
		}
		if kept.KEKID == "" {
			return pii.WrappedKey{}, pii.ErrErased
		}
		return kept, nil
	}
}

// RewrapDataKeys implements pii.Store: one transaction, the keys locked while they are
// rewrapped, so that a rotation is all or nothing.
func (p *Postgres) RewrapDataKeys(ctx context.Context, rewrap func(pii.WrappedKey) (pii.WrappedKey, bool, error)) (int, error) {
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return 0, translate(ctx, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	rows, err := tx.Query(ctx, `SELECT owner, kek_id, wrapped FROM member_keys WHERE kek_id <> `+erasedKEKID+` ORDER BY owner FOR UPDATE`)
	if err != nil {
		return 0, translate(ctx, err)
	}
	type owned struct {
		owner string
		key   pii.WrappedKey
	}
	var keys []owned
	for rows.Next() {
		var o owned
		if err := rows.Scan(&o.owner, &o.key.KEKID, &o.key.Wrapped); err != nil {
			rows.Close()
			return 0, translate(ctx, err)
		}
		keys = append(keys, o)
	}
	if err := rows.Err(); err != nil {
		return 0, translate(ctx, err)
	}
	n := 0
	for _, o := range keys {
		next, changed, err := rewrap(o.key)
		if err != nil {
			return 0, err
		}
		if !changed {
			continue
		}
		if _, err := tx.Exec(ctx, `UPDATE member_keys SET kek_id = $2, wrapped = $3 WHERE owner = $1`, o.owner, next.KEKID, next.Wrapped); err != nil {
			return 0, translate(ctx, err)
		}
		n++
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, translate(ctx, err)
	}
	return n, nil
}

// DeleteDataKey deletes owner's data key, if they have one: an erased member's key that a
// restore of a backup taken before the erasure brought back. The member is marked erased, as
// Erase does.
func (p *Postgres) DeleteDataKey(ctx context.Context, owner string) error {
	if _, err := p.pool.Exec(ctx, eraseDataKeySQL, owner); err != nil {
		return translate(ctx, err)
	}
	return nil
}

// Erase appends events and deletes owner's data key in one transaction, marking them erased:
// either the log records the erasure and the key is gone, or neither. It does not wait for
// other appends.
func (p *Postgres) Erase(ctx context.Context, streamID string, expectedVersion int64, events []eventstore.NewEvent, owner string) ([]eventstore.Event, error) {
	if err := eventstore.ValidateAppend(streamID, expectedVersion, events); err != nil {
		return nil, err
	}
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return nil, translate(ctx, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	res := writeOne(ctx, tx, &appendRequest{streamID: streamID, expectedVersion: expectedVersion, events: events})
	if res.err != nil {
		return nil, res.err
	}
	if _, err := tx.Exec(ctx, eraseDataKeySQL, owner); err != nil {
		return nil, translate(ctx, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, translate(ctx, err)
	}
	p.appendedNow(events)
	return res.events, nil
}

// fingerprintKeySQL makes the installation's fingerprint key the first time it is asked for.
const fingerprintKeySQL = `
UPDATE installation SET fingerprint_key = coalesce(fingerprint_key, $1) RETURNING fingerprint_key`

// FingerprintKey returns the installation's secret for keyed payload fingerprints: made once,
// at the first call on a database, and kept with it.
func (p *Postgres) FingerprintKey(ctx context.Context) ([]byte, error) {
	if _, err := p.Installation(ctx); err != nil { // the installation's row exists
		return nil, err
	}
	made := make([]byte, 32)
	if _, err := rand.Read(made); err != nil {
		return nil, err
	}
	var key []byte
	if err := p.pool.QueryRow(ctx, fingerprintKeySQL, made).Scan(&key); err != nil {
		return nil, translate(ctx, err)
	}
	return key, nil
}
