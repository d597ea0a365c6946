package catalogimport_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/catalogimport"
	"library/internal/eventstore"
	"library/internal/reservations"
	"library/internal/shelves"
	"library/internal/titles"
)

// library is the services an import writes through, on a log in memory.
type library struct {
	log    *eventstore.Memory
	titles *titles.Service
	books  *books.Service
}

func newLibrary(t *testing.T) library {
	t.Helper()
	log := eventstore.NewMemory(nil)
	titleService, bookService := servicesOn(log)
	return library{log: log, titles: titleService, books: bookService}
}

// servicesOn are the titles' and the books' services on log.
func servicesOn(log aggregate.Log) (*titles.Service, *books.Service) {
	opts := aggregate.Options{}
	titleService := titles.NewService(log, opts, time.Now, reservations.NewService(log, opts))
	bookService := books.NewService(log, opts, time.Now, books.Policy{LoanPeriod: 14 * 24 * time.Hour}, nil).
		WithTitles(shelves.Shelves{Titles: titleService})
	return titleService, bookService
}

var operator = eventstore.Actor{Subject: "operator", Role: "librarian"}

func (l library) importer() *catalogimport.Importer {
	return &catalogimport.Importer{Log: l.log, Titles: l.titles, Books: l.books, Actor: operator}
}

func (l library) run(t *testing.T, records ...catalogimport.Record) []catalogimport.Outcome {
	t.Helper()
	outcomes, err := l.importer().Import(context.Background(), records)
	require.NoError(t, err)
	require.Len(t, outcomes, len(records))
	return outcomes
}

func (l library) head(t *testing.T) int64 {
	t.Helper()
	last, err := l.log.LastPosition(context.Background())
	require.NoError(t, err)
	return last
}

func dune() catalogimport.Record {
	return catalogimport.Record{Place: 1, ControlNumber: "OCoLC:ocm00012345", Title: "Dune", Authors: []string{"Herbert, Frank"},
		ISBN: "0-441-01359-7", Year: 1965, Publisher: "Chilton", Language: "eng", Subjects: []string{"Science fiction", "Deserts"},
		Copies: []catalogimport.Copy{{Barcode: "31234000000017", MaterialType: "BK", CallNumber: "SF HER", Price: 1999}, {Barcode: "31234000000025"}}}
}

func emma() catalogimport.Record {
	return catalogimport.Record{Place: 2, ControlNumber: "emma-1", Title: "Emma", Authors: []string{"Austen, Jane"},
		Copies: []catalogimport.Copy{{Barcode: "31234000000033"}}}
}

func outcomesOf(outcomes []catalogimport.Outcome) []string {
	var out []string
	for _, o := range outcomes {
		out = append(out, o.Outcome)
	}
	return out
}

// A first import records each title with its copies, as the commands would: the title's
// fields, the copies' barcodes, types and prices, the ISBN and the barcodes reserved. The same
// records again record nothing.
func TestAnImportRecordsTitlesWithTheirCopiesOnce(t *testing.T) {
	t.Parallel()
	ctx, l := context.Background(), newLibrary(t)
	outcomes := l.run(t, dune(), emma())
	assert.Equal(t, []string{catalogimport.Recorded, catalogimport.Recorded}, outcomesOf(outcomes))
	assert.Equal(t, 2, outcomes[0].Copies)

	id := catalogimport.TitleID("OCoLC:ocm00012345")
	title, _, err := l.titles.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "Dune", title.Title)
	assert.Equal(t, "9780441013593", title.ISBN, "ISBN-13")
	assert.Equal(t, "en", title.Language)
	assert.Equal(t, []string{"Science fiction", "Deserts"}, title.Subjects)
	assert.Equal(t, "OCoLC:ocm00012345", title.ControlNumber)
	require.Len(t, title.Copies, 2)
	holder, err := l.titles.WithISBN(ctx, "9780441013593")
	require.NoError(t, err)
	assert.Equal(t, id, holder)

	book, _, err := l.books.Get(ctx, catalogimport.CopyID("31234000000017"))
	require.NoError(t, err)
	assert.Equal(t, id, book.TitleID)
	assert.Equal(t, "bk", book.Type())
	assert.Equal(t, "31234000000017", book.Barcode)
	assert.Equal(t, "SF HER", book.CallNumber)
	assert.EqualValues(t, 1999, book.ReplacementPrice)

	head := l.head(t)
	again := l.run(t, dune(), emma())
	assert.Equal(t, []string{catalogimport.Unchanged, catalogimport.Unchanged}, outcomesOf(again))
	assert.Equal(t, head, l.head(t), "nothing recorded the second time")
}

// A record that changed records what changed of its title, and the copies it adds.
func TestAChangedRecordRecordsWhatChanged(t *testing.T) {
	t.Parallel()
	ctx, l := context.Background(), newLibrary(t)
	l.run(t, dune())
	changed := dune()
	changed.Publisher, changed.Subjects = "Ace", nil
	changed.Copies = append(changed.Copies, catalogimport.Copy{Barcode: "31234000000041"})
	outcomes := l.run(t, changed)
	assert.Equal(t, catalogimport.Changed, outcomes[0].Outcome)
	assert.Equal(t, 1, outcomes[0].Copies)

	events, err := l.log.ReadStream(ctx, titles.Type().StreamID(catalogimport.TitleID(dune().ControlNumber)), 0)
	require.NoError(t, err)
	var types []string
	for _, e := range events {
		types = append(types, e.Type)
	}
	assert.Equal(t, []string{"TitleAdded", "CopyAdded", "CopyAdded", "TitleChanged", "CopyAdded"}, types)
	assert.JSONEq(t, `{"publisher":"Ace","removed":["subjects"]}`, string(events[3].Data))

	head := l.head(t)
	assert.Equal(t, catalogimport.Unchanged, l.run(t, changed)[0].Outcome)
	assert.Equal(t, head, l.head(t))
}

// A record whose fields changed, and not its copies, records what changed.
func TestARecordWithAChangedFieldOnlyChangesIt(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	l.run(t, dune())
	changed := dune()
	changed.Year = 1966
	assert.Equal(t, catalogimport.Changed, l.run(t, changed)[0].Outcome)
	title, _, err := l.titles.Get(context.Background(), catalogimport.TitleID(dune().ControlNumber))
	require.NoError(t, err)
	assert.Equal(t, 1966, title.Year)
}

// A record whose title is there as it has it, but for a copy, is not taken for unchanged: the
// copy is added. The same records again, all there, record nothing.
func TestARecordWithANewCopyOnlyAddsIt(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	l.run(t, dune(), emma())
	more := emma()
	more.Copies = append(more.Copies, catalogimport.Copy{Barcode: "31234000000058"})
	outcomes := l.run(t, dune(), more)
	assert.Equal(t, []string{catalogimport.Unchanged, catalogimport.Changed}, outcomesOf(outcomes))
	assert.Equal(t, []int{0, 1}, []int{outcomes[0].Copies, outcomes[1].Copies})
	_, _, err := l.books.Get(context.Background(), catalogimport.CopyID("31234000000058"))
	require.NoError(t, err)

	head := l.head(t)
	assert.Equal(t, []string{catalogimport.Unchanged, catalogimport.Unchanged}, outcomesOf(l.run(t, dune(), more)))
	assert.Equal(t, head, l.head(t))
}

// A record without a title is refused, and the others of its batch are recorded; a field the
// catalogue can't keep is left out with a warning.
func TestRefusalsAndWarnings(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	untitled := emma()
	untitled.Place, untitled.ControlNumber, untitled.Title = 3, "x", "  "
	odd := emma()
	odd.Place, odd.ControlNumber, odd.Language, odd.Year, odd.Authors = 4, "odd", "xx1", 3000, nil
	odd.Copies = []catalogimport.Copy{{Barcode: "bad barcode!"}, {Barcode: "31234000000058"}}
	outcomes := l.run(t, untitled, odd)
	assert.Equal(t, []string{catalogimport.Refused, catalogimport.Recorded}, outcomesOf(outcomes))
	assert.Equal(t, catalogimport.ReasonNoTitle, outcomes[0].Reason)
	assert.Equal(t, 3, outcomes[0].Place)
	assert.Equal(t, 1, outcomes[1].Copies)
	var reasons []string
	for _, w := range outcomes[1].Warnings {
		reasons = append(reasons, w.Reason+":"+w.Field)
	}
	assert.ElementsMatch(t, []string{"noAuthor:authors", "dropped:language", "dropped:year", "badBarcode:"}, reasons)
}

// A title added by hand with the record's ISBN is the record's title: changed to what the
// record says, its copies added.
func TestAnISBNMatchesATitleAddedByHand(t *testing.T) {
	t.Parallel()
	ctx, l := context.Background(), newLibrary(t)
	isbn := "9780441013593"
	_, err := l.titles.Add(ctx, titles.AddTitle{ID: "dune-by-hand", Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: &isbn},
		aggregate.Origin{Actor: operator})
	require.NoError(t, err)
	outcomes := l.run(t, dune())
	assert.Equal(t, catalogimport.Changed, outcomes[0].Outcome)
	assert.Equal(t, "dune-by-hand", outcomes[0].TitleID, "matched by ISBN")
	title, _, err := l.titles.Get(ctx, "dune-by-hand")
	require.NoError(t, err)
	assert.Equal(t, "Herbert, Frank", title.Authors[0], "the record's fields")
	assert.Len(t, title.Copies, 2)

	head := l.head(t)
	assert.Equal(t, catalogimport.Unchanged, l.run(t, dune())[0].Outcome)
	assert.Equal(t, head, l.head(t))
}

// Two records with one ISBN are two titles, never one on a guess: the second is recorded
// without it, with a warning, in this import and the next.
func TestTwoRecordsWithOneISBNAreTwoTitles(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	other := dune()
	other.Place, other.ControlNumber, other.Copies = 2, "other", nil
	for _, batches := range [][][]catalogimport.Record{{{dune(), other}}, {{dune()}, {other}}} {
		l := newLibrary(t)
		var outcomes []catalogimport.Outcome
		for _, batch := range batches {
			outcomes = append(outcomes, l.run(t, batch...)...)
		}
		assert.Equal(t, []string{catalogimport.Recorded, catalogimport.Recorded}, outcomesOf(outcomes))
		require.Len(t, outcomes[1].Warnings, 1)
		assert.Equal(t, "isbn", outcomes[1].Warnings[0].Field)
	}
	l.run(t, dune(), other)
	head := l.head(t)
	again := l.run(t, dune(), other)
	assert.Equal(t, []string{catalogimport.Unchanged, catalogimport.Unchanged}, outcomesOf(again))
	assert.Len(t, again[1].Warnings, 1, "the ISBN left out again")
	assert.Equal(t, head, l.head(t))
}

// A copy whose barcode is another title's copy is a warning; the rest of the record is
// recorded.
func TestACopyOfAnotherTitleIsAWarning(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	l.run(t, emma())
	taken := dune()
	taken.Copies = append(taken.Copies, emma().Copies...)
	outcomes := l.run(t, taken)
	assert.Equal(t, catalogimport.Recorded, outcomes[0].Outcome)
	assert.Equal(t, 2, outcomes[0].Copies)
	require.Len(t, outcomes[0].Warnings, 1)
	assert.Equal(t, catalogimport.ReasonCopyOfOther, outcomes[0].Warnings[0].Reason)
}

// A dry run says what would be recorded, and records nothing.
func TestADryRunRecordsNothing(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	im := l.importer()
	im.DryRun = true
	outcomes, err := im.Import(context.Background(), []catalogimport.Record{dune(), emma()})
	require.NoError(t, err)
	assert.Equal(t, []string{catalogimport.Recorded, catalogimport.Recorded}, outcomesOf(outcomes))
	assert.Zero(t, l.head(t))
}

// Within one batch, a second record of one title (one control number) waits for the first.
func TestOneTitleTwiceInABatch(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	second := dune()
	second.Place, second.Publisher = 2, "Ace"
	outcomes := l.run(t, dune(), second)
	assert.Equal(t, []string{catalogimport.Recorded, catalogimport.Changed}, outcomesOf(outcomes))
}

// A dry run says of a record that meets the log (here, a copy of another title) what a run
// would: it asks the log about every stream before it says a record is new.
func TestADryRunSaysWhatARunWould(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	l.run(t, emma())
	taken := dune()
	taken.Copies = append(taken.Copies, emma().Copies...)
	im := l.importer()
	im.DryRun = true
	head := l.head(t)
	dry, err := im.Import(context.Background(), []catalogimport.Record{taken})
	require.NoError(t, err)
	assert.Equal(t, head, l.head(t), "the dry run recorded nothing")
	assert.Equal(t, l.run(t, taken), dry)
}

// A dry run warns of a barcode that a copy added by hand holds, as a run would.
func TestADryRunWarnsOfATakenBarcode(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	ctx := context.Background()
	l.run(t, emma())
	_, err := l.books.AddCopy(ctx, books.AddCopy{ID: "by-hand", TitleID: "m:emma-1", Barcode: dune().Copies[1].Barcode}, aggregate.Origin{Actor: operator})
	require.NoError(t, err)
	im := l.importer()
	im.DryRun = true
	dry, err := im.Import(ctx, []catalogimport.Record{dune()})
	require.NoError(t, err)
	assert.Equal(t, l.run(t, dune()), dry)
}
