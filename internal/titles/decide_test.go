package titles_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/titles"
)

// now is the clock of these tests: a year of publication may be 2027 at the latest.
var now = time.Date(2026, 3, 10, 15, 30, 0, 0, time.UTC)

// dune is the title most cases start from: every field given.
var dune = titles.TitleAdded{ID: "dune", Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441013593",
	Year: 1965, Publisher: "Chilton Books", Language: "en", Subjects: []string{"Science fiction", "Deserts"}}

func ptr[T any](v T) *T { return &v }

// fold is the state after the given events.
func fold(given ...titles.Event) titles.Title {
	var t titles.Title
	for _, e := range given {
		t = titles.Apply(t, e)
	}
	return t
}

// decideCase is "given events, when a command, then events or an error code".
type decideCase struct {
	name  string
	given []titles.Event
	when  func(titles.Title) ([]titles.Event, error)
	then  []titles.Event // nil: no events
	err   errs.Code      // "": no error
}

func run(t *testing.T, tests []decideCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.when(fold(tt.given...))
			if tt.err != "" {
				require.Error(t, err)
				require.True(t, errs.Is(err, tt.err), "want %s, got %v", tt.err, err)
				require.Empty(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.then, got)
		})
	}
}

// The "when" steps check the command, then decide it, as the service does.

func add(c titles.AddTitle) func(titles.Title) ([]titles.Event, error) {
	return func(t titles.Title) ([]titles.Event, error) {
		c, err := c.Checked(now)
		if err != nil {
			return nil, err
		}
		return c.Decide(t)
	}
}

func change(c titles.ChangeTitle) func(titles.Title) ([]titles.Event, error) {
	return func(t titles.Title) ([]titles.Event, error) {
		c, err := c.Checked(now)
		if err != nil {
			return nil, err
		}
		return c.Decide(t)
	}
}

func TestAddTitle(t *testing.T) {
	t.Parallel()
	whole := titles.AddTitle{ID: "dune", Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: ptr("0-441-01359-7"),
		Year: ptr(1965), Publisher: ptr("Chilton Books"), Language: ptr("ENG"), Subjects: []string{"Science fiction", "Deserts"}}
	least := titles.AddTitle{ID: "emma", Title: "Emma", Authors: []string{"Jane Austen"}}
	with := func(edit func(*titles.AddTitle)) titles.AddTitle {
		c := least
		edit(&c)
		return c
	}
	run(t, []decideCase{
		{name: "every field, kept in one form", when: add(whole), then: []titles.Event{dune}},
		{name: "title and authors only", when: add(least),
			then: []titles.Event{titles.TitleAdded{ID: "emma", Title: "Emma", Authors: []string{"Jane Austen"}}}},
		{name: "no subjects is none", when: add(with(func(c *titles.AddTitle) { c.Subjects = []string{} })),
			then: []titles.Event{titles.TitleAdded{ID: "emma", Title: "Emma", Authors: []string{"Jane Austen"}}}},
		{name: "added twice", given: []titles.Event{dune}, when: add(whole), err: errs.TitleAlreadyExists},
		{name: "added twice, another record", given: []titles.Event{dune}, when: add(with(func(c *titles.AddTitle) { c.ID = "dune" })),
			err: errs.TitleAlreadyExists},
	})
	bad := map[string]func(*titles.AddTitle){
		"no id":                   func(c *titles.AddTitle) { c.ID = "" },
		"an id with a space":      func(c *titles.AddTitle) { c.ID = "du ne" },
		"no title":                func(c *titles.AddTitle) { c.Title = " " },
		"a title of two lines":    func(c *titles.AddTitle) { c.Title = "Emma\nVol. 2" },
		"a title too long":        func(c *titles.AddTitle) { c.Title = strings.Repeat("t", titles.MaxTitleLength+1) },
		"no authors":              func(c *titles.AddTitle) { c.Authors = nil },
		"too many authors":        func(c *titles.AddTitle) { c.Authors = names(titles.MaxAuthors + 1) },
		"an author blank":         func(c *titles.AddTitle) { c.Authors = []string{"Jane Austen", ""} },
		"an author too long":      func(c *titles.AddTitle) { c.Authors = []string{strings.Repeat("a", titles.MaxAuthorLength+1)} },
		"an author twice":         func(c *titles.AddTitle) { c.Authors = []string{"Jane Austen", "Jane Austen"} },
		"a bad ISBN":              func(c *titles.AddTitle) { c.ISBN = ptr("0-441-01359-8") },
		"an empty ISBN":           func(c *titles.AddTitle) { c.ISBN = ptr("") },
		"a year too early":        func(c *titles.AddTitle) { c.Year = ptr(titles.MinYear - 1) },
		"a year after next":       func(c *titles.AddTitle) { c.Year = ptr(2028) },
		"year 0":                  func(c *titles.AddTitle) { c.Year = ptr(0) },
		"an empty publisher":      func(c *titles.AddTitle) { c.Publisher = ptr("") },
		"a publisher too long":    func(c *titles.AddTitle) { c.Publisher = ptr(strings.Repeat("p", titles.MaxPublisherLength+1)) },
		"a language of no one":    func(c *titles.AddTitle) { c.Language = ptr("xx") },
		"a language with region":  func(c *titles.AddTitle) { c.Language = ptr("en-GB") },
		"an empty language":       func(c *titles.AddTitle) { c.Language = ptr("") },
		"too many subjects":       func(c *titles.AddTitle) { c.Subjects = names(titles.MaxSubjects + 1) },
		"a subject too long":      func(c *titles.AddTitle) { c.Subjects = []string{strings.Repeat("s", titles.MaxSubjectLength+1)} },
		"a subject twice":         func(c *titles.AddTitle) { c.Subjects = []string{"Novels", "Novels"} },
		"a subject with a tab":    func(c *titles.AddTitle) { c.Subjects = []string{"Novels\t"} },
		"an author with a U+FFFD": func(c *titles.AddTitle) { c.Authors = []string{"Jane \uFFFD"} },
	}
	var cases []decideCase
	for name, edit := range bad {
		cases = append(cases, decideCase{name: name, when: add(with(edit)), err: errs.InvalidRequest})
	}
	run(t, cases)
}

// The bounds are inclusive.
func TestAddTitleAtItsBounds(t *testing.T) {
	t.Parallel()
	c := titles.AddTitle{ID: strings.Repeat("i", 128), Title: strings.Repeat("é", titles.MaxTitleLength),
		Authors: names(titles.MaxAuthors), Year: ptr(2027), Publisher: ptr(strings.Repeat("p", titles.MaxPublisherLength)),
		Subjects: names(titles.MaxSubjects)}
	checked, err := c.Checked(now)
	require.NoError(t, err)
	_, err = titles.AddTitle{ID: "old", Title: "Old", Authors: []string{"A"}, Year: ptr(titles.MinYear)}.Checked(now)
	require.NoError(t, err)
	require.Equal(t, c, checked)
}

func TestChangeTitle(t *testing.T) {
	t.Parallel()
	run(t, []decideCase{
		{name: "no such title", when: change(titles.ChangeTitle{Title: ptr("Dune")}), err: errs.NotFound},
		{name: "one field", given: []titles.Event{dune}, when: change(titles.ChangeTitle{Title: ptr("Dune Messiah")}),
			then: []titles.Event{titles.TitleChanged{Title: "Dune Messiah"}}},
		{name: "only what changed", given: []titles.Event{dune},
			when: change(titles.ChangeTitle{Title: ptr("Dune"), Authors: []string{"Frank Herbert"}, Year: ptr(1966), Language: ptr("eng")}),
			then: []titles.Event{titles.TitleChanged{Year: 1966}}},
		{name: "the same ISBN written another way changes nothing", given: []titles.Event{dune},
			when: change(titles.ChangeTitle{ISBN: ptr("0 441 01359 7")})},
		{name: "nothing", given: []titles.Event{dune}, when: change(titles.ChangeTitle{})},
		{name: "a new ISBN", given: []titles.Event{dune}, when: change(titles.ChangeTitle{ISBN: ptr("978-0-593-09932-2")}),
			then: []titles.Event{titles.TitleChanged{ISBN: "9780593099322"}}},
		{name: "removed, in the order of the fields", given: []titles.Event{dune},
			when: change(titles.ChangeTitle{Remove: []string{"subjects", "isbn", "year"}}),
			then: []titles.Event{titles.TitleChanged{Removed: []string{"isbn", "year", "subjects"}}}},
		{name: "empty subjects are removed", given: []titles.Event{dune}, when: change(titles.ChangeTitle{Subjects: []string{}}),
			then: []titles.Event{titles.TitleChanged{Removed: []string{"subjects"}}}},
		{name: "removing what the title lacks changes nothing", given: []titles.Event{dune, titles.TitleChanged{Removed: []string{"year"}}},
			when: change(titles.ChangeTitle{Remove: []string{"year"}})},
		{name: "authors replaced whole", given: []titles.Event{dune},
			when: change(titles.ChangeTitle{Authors: []string{"Frank Herbert", "Brian Herbert"}}),
			then: []titles.Event{titles.TitleChanged{Authors: []string{"Frank Herbert", "Brian Herbert"}}}},
		{name: "title removed", given: []titles.Event{dune}, when: change(titles.ChangeTitle{Remove: []string{"title"}}), err: errs.InvalidRequest},
		{name: "authors removed", given: []titles.Event{dune}, when: change(titles.ChangeTitle{Remove: []string{"authors"}}), err: errs.InvalidRequest},
		{name: "no authors", given: []titles.Event{dune}, when: change(titles.ChangeTitle{Authors: []string{}}), err: errs.InvalidRequest},
		{name: "an unknown field removed", given: []titles.Event{dune}, when: change(titles.ChangeTitle{Remove: []string{"colour"}}), err: errs.InvalidRequest},
		{name: "set and removed", given: []titles.Event{dune}, when: change(titles.ChangeTitle{Year: ptr(1966), Remove: []string{"year"}}),
			err: errs.InvalidRequest},
		{name: "a bad ISBN", given: []titles.Event{dune}, when: change(titles.ChangeTitle{ISBN: ptr("978-0-441-01359-4")}), err: errs.InvalidRequest},
		{name: "a bad year", given: []titles.Event{dune}, when: change(titles.ChangeTitle{Year: ptr(99)}), err: errs.InvalidRequest},
		{name: "a blank title", given: []titles.Event{dune}, when: change(titles.ChangeTitle{Title: ptr("")}), err: errs.InvalidRequest},
	})
}

// Folding a change gives the title its new values, and takes away what it removes.
func TestApplyChange(t *testing.T) {
	t.Parallel()
	got := fold(dune, titles.TitleChanged{Title: "Dune (40th anniversary)", ISBN: "9780593099322", Removed: []string{"year", "subjects"}})
	require.Equal(t, titles.Title{Added: true, ID: "dune", Title: "Dune (40th anniversary)", Authors: []string{"Frank Herbert"},
		ISBN: "9780593099322", Publisher: "Chilton Books", Language: "en"}, got)
}

func TestLanguage(t *testing.T) {
	t.Parallel()
	for written, want := range map[string]string{"en": "en", "EN": "en", "eng": "en", "fre": "fr", "fra": "fr", "ger": "de",
		"haw": "haw", "grc": "grc", "mul": "mul", "zxx": "zxx", "Ja": "ja", "chi": "zh"} {
		got, err := titles.Language("language", written)
		require.NoError(t, err, written)
		require.Equal(t, want, got, written)
	}
	for _, bad := range []string{"", "e", "xx", "zzz", "engl", "en-GB", "e1", "é", "en "} {
		_, err := titles.Language("language", bad)
		require.True(t, errs.Is(err, errs.InvalidRequest), "%q: %v", bad, err)
	}
}

// names are n distinct names.
func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "Name " + strings.Repeat("i", i+1)
	}
	return out
}
