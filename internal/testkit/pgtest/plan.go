package pgtest

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Plan runs explain, an EXPLAIN of a statement, with args, and returns the plan it prints, one
// line a row, after logging it under what.
func Plan(t testing.TB, pool *pgxpool.Pool, what, explain string, args ...any) string {
	t.Helper()
	rows, err := pool.Query(context.Background(), explain, args...)
	if err != nil {
		t.Fatalf("pgtest: %s: %v", what, err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("pgtest: %s: %v", what, err)
	}
	plan := strings.Join(lines, "\n")
	t.Logf("%s:\n%s", what, plan)
	return plan
}
