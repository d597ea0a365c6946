//go:build faults

package faults

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/testkit/marcgen"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/proctest"
)

const (
	importRecords = 200_000
	importKills   = 3
)

// An import of 200,000 records SIGKILLed at three random points, and started again each time,
// ends with the same log as one import that never stopped: the same streams, at the same
// versions, with the same events, data and metadata; nothing twice, nothing missing. (That the
// same file once more records nothing, cmd/library's TestImportAndExportMARC shows.)
func TestImportKilledThreeTimesEndsAsOneCleanRun(t *testing.T) {
	// Not in parallel: it keeps both cores busy, where the parallel tests wait for the clock.
	file := generated(t, importRecords)
	clean, killed := pgtest.NewDatabase(t), pgtest.NewDatabase(t)
	cleanPool, killedPool := pgtest.Connect(t, clean), pgtest.Connect(t, killed)

	began := time.Now()
	importToEnd(t, clean, file)
	cleanTook := time.Since(began)
	events := countEvents(t, cleanPool)

	var at []int
	for k := range importKills {
		p := proctest.Launch(t, []string{"DATABASE_URL=" + killed}, "import", "marc", file)
		// Somewhere in the part of the log the run before left to write.
		before := countEvents(t, killedPool)
		target := lastPosition(t, killedPool) + int64(rand.Float64()*float64(events-before)*0.6) + 1
		waitForPosition(t, killedPool, p, target)
		p.Kill()
		n := countEvents(t, killedPool)
		at = append(at, n)
		t.Logf("kill %d at %d of %d events", k+1, n, events)
	}
	importToEnd(t, killed, file)

	want, got := logOf(t, cleanPool), logOf(t, killedPool)
	if got.events != want.events || got.sum != want.sum {
		t.Fatalf("the log after the kills is not the clean run's: %d events (sum %s), want %d (sum %s)", got.events, got.sum, want.events, want.sum)
	}
	t.Logf("FAULTS import: records=%d events=%d clean-run=%s kills-at=%v same-log=true (%d events, sum %s) wall=%s",
		importRecords, events, cleanTook.Round(time.Millisecond), at, got.events, got.sum, time.Since(began).Round(time.Second))
}

// generated writes a catalogue of n records to a file of its own.
func generated(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "catalogue.mrc")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := marcgen.Write(w, 1, n); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// importToEnd runs `library import marc file` on database until it exits, which it must do
// with status 0.
func importToEnd(t *testing.T, database, file string) {
	t.Helper()
	p := proctest.Launch(t, []string{"DATABASE_URL=" + database}, "import", "marc", file)
	if err := p.Wait(t, 10*time.Minute); err != nil {
		t.Fatalf("the import failed: %v\n%s", err, p.Output())
	}
}

// waitForPosition polls the log until its last position is at least n; the import must not end
// first. It asks for the last position, which the primary key's index answers at once, rather
// than counting the events: a count reads the whole table, and one every 20 ms took a core from
// the import it waited for.
func waitForPosition(t *testing.T, pool *pgxpool.Pool, p *proctest.Process, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		got := lastPosition(t, pool)
		if got >= n {
			return
		}
		select {
		case <-p.Exited():
			t.Fatalf("the import ended at position %d, before %d:\n%s", got, n, p.Output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("position %d after 5 minutes, waiting for %d", got, n)
		}
		time.Sleep(20 * time.Millisecond) // polling the log, closely enough to kill mid-way
	}
}

// lastPosition is the position of the log's last committed event (0 when it has none).
func lastPosition(t *testing.T, pool *pgxpool.Pool) int64 {
	t.Helper()
	var n int64
	if err := pool.QueryRow(context.Background(), `SELECT coalesce(max(position), 0) FROM events`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func countEvents(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM events`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// logSum is a log's content: its events' count and a hash of each one's stream, version, type,
// data and metadata, in stream and version order (positions and times are the run's own).
type logSum struct {
	events int
	sum    string
}

func logOf(t *testing.T, pool *pgxpool.Pool) logSum {
	t.Helper()
	rows, err := pool.Query(context.Background(),
		`SELECT stream_id, version, type, data::text, metadata::text FROM events ORDER BY stream_id, version`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	h := sha256.New()
	var out logSum
	for rows.Next() {
		var stream, typ, data, metadata string
		var version int64
		if err := rows.Scan(&stream, &version, &typ, &data, &metadata); err != nil {
			t.Fatal(err)
		}
		_, _ = fmt.Fprintf(h, "%s\x00%d\x00%s\x00%s\x00%s\n", stream, version, typ, data, metadata) // a hash.Hash never fails
		out.events++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	out.sum = hex.EncodeToString(h.Sum(nil))[:16]
	return out
}
