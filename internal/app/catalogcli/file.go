package catalogcli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"library/internal/catalogimport"
	"library/internal/marc"
	"library/internal/marc/marcmap"
)

// file imports the records of one file, a batch at a time.
func (run *importRun) file(ctx context.Context, path string, progress io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	read := &countingReader{r: f}
	records, err := marc.NewReader(read)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	run.path = path
	shown := newImportProgress(progress, path, info.Size(), read, run.summary.Read)
	defer shown.done(&run.summary)
	for place := 1; ; place++ {
		rec, err := records.Next()
		var refused *marc.RecordError
		switch {
		case errors.Is(err, io.EOF):
			if err := run.flush(ctx); err != nil {
				return err
			}
			return run.finish()
		case errors.As(err, &refused):
			run.refuse(catalogimport.Outcome{Place: refused.Ordinal, ControlNumber: refused.ControlNumber,
				Outcome: catalogimport.Refused, Reason: string(refused.Reason), Message: refused.Message})
		case err != nil:
			return errors.Join(fmt.Errorf("%s, after record %d: %w", path, place-1, err), run.finish())
		default:
			run.add(rec, place)
		}
		if len(run.pending) >= run.batch {
			if err := run.flush(ctx); err != nil {
				return errors.Join(err, run.finish())
			}
			if run.reportErr != nil {
				return errors.Join(fmt.Errorf("--report: %w", run.reportErr), run.finish())
			}
			shown.show(&run.summary)
		}
	}
}

// add maps a record to a title with copies and keeps it for the batch, or reports it refused.
func (run *importRun) add(rec marc.Record, place int) {
	bib, err := marcmap.Map(rec, run.holdings)
	var refusal *marcmap.Refusal
	if errors.As(err, &refusal) {
		run.refuse(catalogimport.Outcome{Place: place, ControlNumber: rec.ControlNumber(), Outcome: catalogimport.Refused,
			Reason: string(refusal.Code), Message: refusal.Message})
		return
	}
	run.pending = append(run.pending, recordOf(bib, place))
}

// recordOf is a mapped record as the import takes it.
func recordOf(b marcmap.Bib, place int) catalogimport.Record {
	r := catalogimport.Record{Place: place, ControlNumber: b.Identity(), Title: b.Title, Authors: b.Authors, ISBN: b.ISBN(),
		Year: b.Year, Publisher: b.Publisher, Language: b.Language, Subjects: b.Subjects}
	for _, c := range b.Copies {
		r.Copies = append(r.Copies, catalogimport.Copy{Barcode: c.Barcode, MaterialType: c.MaterialType, CallNumber: c.CallNumber, Price: c.PriceCents})
	}
	for _, w := range b.Warnings {
		r.Warnings = append(r.Warnings, catalogimport.Warning{Reason: string(w.Code), Field: w.Tag, Message: w.Message})
	}
	return r
}

// flush starts the import of the batch in hand, beside the batches already going, and waits
// while importWorkers are: the next batch is read and mapped while the database writes these.
func (run *importRun) flush(ctx context.Context) error {
	if len(run.pending) > 0 {
		b := &batchInFlight{done: make(chan struct{}), path: run.path}
		records := run.pending
		run.pending = nil
		go func() {
			defer close(b.done)
			b.outcomes, b.err = run.importer.Import(ctx, records)
		}()
		run.inFlight = append(run.inFlight, b)
	}
	for len(run.inFlight) >= importWorkers {
		if err := run.collect(); err != nil {
			return err
		}
	}
	return nil
}

// finish waits for every batch in flight, and reports what came of each.
func (run *importRun) finish() error {
	var first error
	for len(run.inFlight) > 0 {
		if err := run.collect(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// importWorkers is how many batches are imported at once, and importWriters how many of them
// the database writes at once: two writers keep a machine of two cores busy (a third slows
// them all down), and the batches decided meanwhile are ready when one is done.
const (
	importWorkers = 4
	importWriters = 2
)

// batchInFlight is a batch being imported.
type batchInFlight struct {
	done     chan struct{}
	path     string
	outcomes []catalogimport.Outcome
	err      error
}

// collect waits for the oldest batch in flight and reports what came of it, so that the
// report keeps the order of the file. On an error, the batches after it are still waited for.
func (run *importRun) collect() error {
	b := run.inFlight[0]
	<-b.done
	run.inFlight = run.inFlight[1:]
	if b.err != nil {
		return b.err
	}
	for _, o := range b.outcomes {
		run.summary.Count(o)
		if o.Outcome == catalogimport.Refused || len(o.Warnings) > 0 {
			run.writeIn(b.path, o)
		}
	}
	return nil
}

// refuse counts and reports a record refused before it reached the import.
func (run *importRun) refuse(o catalogimport.Outcome) {
	run.summary.Count(o)
	run.write(o)
}

func (run *importRun) write(o catalogimport.Outcome) { run.writeIn(run.path, o) }

// writeIn writes a line of the report; the first failure is kept, and ends the import.
func (run *importRun) writeIn(path string, o catalogimport.Outcome) {
	if run.report != nil && run.reportErr == nil {
		run.reportErr = run.report.Encode(reportLine{File: path, Outcome: o})
	}
}

// countingReader counts the bytes read through it: how far into its file the import is.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
