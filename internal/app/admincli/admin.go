package admincli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"library/internal/app"
	"library/internal/eventstore/pgstore"
	"library/internal/validate"
)

// RotateKeys rewraps every member's data key with the first key of PII_KEY, so that the
// others can then be taken out of it (`library keys rotate`). The log is not rewritten.
func RotateKeys(ctx context.Context, cfg app.Config, logger *slog.Logger, out io.Writer) error {
	if cfg.PIIKey == "" {
		return errors.New("keys rotate needs PII_KEY: the new key first, then the ones the data keys are wrapped by now")
	}
	pool, err := app.OpenDatabase(ctx, cfg, "keys rotate")
	if err != nil {
		return err
	}
	defer pool.Close()
	store := pgstore.New(pool, logger)
	defer store.Close()
	ring, err := app.Keyring(cfg, store)
	if err != nil {
		return err
	}
	n, err := ring.Rotate(ctx)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(out, "rewrapped %d data keys with the first key of PII_KEY\n", n)
	return err
}

// auditSQL finds the member ids that hold an "@": in account stream ids and in events that
// name a member.
const auditSQL = `
SELECT DISTINCT substr(stream_id, 9) FROM events WHERE stream_id LIKE 'account-%@%'
UNION
SELECT DISTINCT data->>'memberId' FROM events WHERE data->>'memberId' LIKE '%@%'`

// AuditMembers lists the member ids that look like email addresses (`library members
// audit`): personal data kept for ever in stream ids and loans, which new accounts may no
// longer use. They keep working; this says which there are.
func AuditMembers(ctx context.Context, cfg app.Config, out io.Writer) error {
	pool, err := app.OpenDatabase(ctx, cfg, "members audit")
	if err != nil {
		return err
	}
	defer pool.Close()
	rows, err := pool.Query(ctx, auditSQL)
	if err != nil {
		return fmt.Errorf("members audit: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		if validate.LooksLikeEmail(id) {
			ids = append(ids, id)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	if _, err := fmt.Fprintf(out, "%d member ids look like email addresses\n", len(ids)); err != nil {
		return err
	}
	if len(ids) > 0 {
		_, err = fmt.Fprintln(out, strings.Join(ids, "\n"))
	}
	return err
}
