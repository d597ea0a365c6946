package catalogimport_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/catalogimport"
	"library/internal/titles"
)

func exportAll(t *testing.T, l library) []catalogimport.Record {
	t.Helper()
	var out []catalogimport.Record
	require.NoError(t, catalogimport.Export(context.Background(), l.log, l.titles, l.books, func(r catalogimport.Record) error {
		out = append(out, r)
		return nil
	}))
	return out
}

// A catalogue exported and imported into an empty library is the same catalogue: the same
// titles, with the same fields and copies.
func TestAnExportImportsBackAsTheSameCatalogue(t *testing.T) {
	t.Parallel()
	ctx, from := context.Background(), newLibrary(t)
	from.run(t, dune(), emma())
	exported := exportAll(t, from)
	require.Len(t, exported, 2)

	to := newLibrary(t)
	outcomes := to.run(t, exported...)
	assert.Equal(t, []string{catalogimport.Recorded, catalogimport.Recorded}, outcomesOf(outcomes))
	for _, r := range []catalogimport.Record{dune(), emma()} {
		id := catalogimport.TitleID(r.ControlNumber)
		want, _, err := from.titles.Get(ctx, id)
		require.NoError(t, err)
		got, _, err := to.titles.Get(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, strip(want), strip(got))
		for _, c := range want.Copies {
			a, _, err := from.books.Get(ctx, c.BookID)
			require.NoError(t, err)
			b, _, err := to.books.Get(ctx, c.BookID)
			require.NoError(t, err)
			assert.Equal(t, []any{a.Barcode, a.Type(), a.CallNumber, a.ReplacementPrice, a.Title, a.Author},
				[]any{b.Barcode, b.Type(), b.CallNumber, b.ReplacementPrice, b.Title, b.Author})
		}
	}
	assert.Equal(t, exported, exportAll(t, to), "and exports as it did")
}

// strip is a title without what the log, not the catalogue, gives it.
func strip(t titles.Title) titles.Title {
	t.Holds = nil
	return t
}
