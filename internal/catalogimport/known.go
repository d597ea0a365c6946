package catalogimport

import (
	"context"

	"library/internal/aggregate"
	"library/internal/eventstore"
	"library/internal/titles"
)

// known settles, in one read of the log, the records among alone that would change nothing:
// their title is there under their control number, as they have it, field for field, with
// every copy they list. An import started again meets these by the thousand, and each would
// otherwise be a read of its own. They are Unchanged, as the titles' and books' commands would
// decide them (which would write nothing); known returns the others, for one to record each.
func (im *Importer) known(ctx context.Context, k kinds, fits []*fitted, alone []int, settle func(j int)) ([]int, error) {
	if len(alone) == 0 {
		return alone, nil
	}
	ids := make([]string, len(alone))
	for i, j := range alone {
		ids[i] = k.titles.StreamID(fits[j].title.ID)
	}
	streams, err := im.Log.ReadStreams(ctx, ids)
	if err != nil {
		return nil, err
	}
	var rest []int
	for i, j := range alone {
		if im.changesNothing(k, fits[j], streams[ids[i]]) {
			settle(j)
			continue
		}
		rest = append(rest, j)
	}
	return rest, nil
}

// changesNothing reports whether the title that events make is the record's already, copies
// and all. When it can't tell (no title, or an event it can't read), it says no, and the
// record is recorded through the commands, which decide for themselves.
func (im *Importer) changesNothing(k kinds, f *fitted, events []eventstore.Event) bool {
	t, ok := fold(k.titles, events)
	if !ok || !t.Added {
		return false
	}
	for _, c := range f.copies {
		if !t.HasCopy(c.ID) {
			return false
		}
	}
	_, decided, err := im.decideChange(f, t)
	return err == nil && len(decided) == 0
}

// fold is the title a stream's events make, and false when one of them can't be read.
func fold(kind aggregate.Type[titles.Title], events []eventstore.Event) (titles.Title, bool) {
	t := kind.New()
	for _, e := range events {
		ev, err := kind.Decode(e)
		if err != nil {
			return t, false
		}
		if ev != nil {
			t = kind.Apply(t, ev)
		}
	}
	return t, true
}
