package apart

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/workload"
)

// The titles search measurement: GET /titles at TitlesCount titles of TitlesCopies copies each,
// on a service process of its own and a database of its own. The service starts on the empty
// database (so that it migrates it), and the titles are written straight into the events table,
// TitlesPerTransaction titles a transaction, a statement for each kind of event, as the service
// writes them: each
// title's TitleAdded, its copies' CopyAdded, and each copy's own BookAdded (with its title and
// barcode); a third of the titles have every copy lent (CopyLent on the title: the loans'
// BookLent are left out, so that no loan email is sent), and one in thirty of those a member
// waiting (TitleHoldPlaced). The service's catalog then builds its titles from them (until
// /status shows its build caught up and GET /titles answers), and each search is asked for
// TitlesRequests times, one at a time.
const (
	TitlesCount     = 100_000
	TitlesCopies    = 3
	TitlesRequests  = 200
	TitlesWarmups   = 10
	titlesCatchUp   = 20 * time.Minute // the most to wait for the catalog to read the titles
	titlesProbe     = 12345            // the title whose author and ISBN are searched for
	titlesSubjectsN = 37
)

// titlesPlaces are the places of the titles' third word: "Golden River of Lisbon".
var titlesPlaces = []string{"Lisbon", "Kyoto", "Lagos", "Quito", "Oslo", "Hanoi", "Dakar", "Lima", "Perth", "Tunis",
	"Bergen", "Porto", "Cusco", "Tartu", "Malmo", "Split", "Ghent", "Turin", "Graz", "Basel", "Krakow", "Brno", "Pecs",
	"Aarhus", "Riga", "Vilnius", "Tallinn", "Sofia", "Varna", "Izmir", "Aswan"} // 31

// titlesWords makes the table the titles are written from, bench_titles, one row per title:
// $1 is the number of titles; $2 to $8 the word lists: adjectives, nouns, places, first names,
// surname starts and ends, subjects. Title i is t + i in six digits, its ISBN 978 + i in nine
// digits + its check digit.
var titlesWords = []string{
	`CREATE TABLE bench_titles (i integer PRIMARY KEY, id text, title text, author text, subject text, isbn text)`,
	`INSERT INTO bench_titles
SELECT i, 't' || lpad(i::text, 6, '0'),
	($2::text[])[1 + i % cardinality($2::text[])] || ' ' || ($3::text[])[1 + i % cardinality($3::text[])]
		|| ' of ' || ($4::text[])[1 + i % cardinality($4::text[])],
	($5::text[])[1 + i % cardinality($5::text[])] || ' ' || ($6::text[])[1 + i % cardinality($6::text[])]
		|| ($7::text[])[1 + i % cardinality($7::text[])],
	($8::text[])[1 + i % cardinality($8::text[])],
	d || ((10 - (SELECT sum(substr(d, k, 1)::int * (1 + 2 * ((k + 1) % 2))) FROM generate_series(1, 12) AS k) % 10) % 10)::text
FROM generate_series(1, $1::int) AS i, LATERAL (SELECT '978' || lpad(i::text, 9, '0') AS d) AS digits`,
}

// titlesEvents write the events of titles $1 to $2 of bench_titles, as the service writes them:
// each title's TitleAdded, its copies' CopyAdded (copy k of title i is c + i + -k), the copies'
// own BookAdded, every copy of one title in three lent (CopyLent), and a member waiting on one
// in thirty of those (TitleHoldPlaced).
var titlesEvents = []string{
	`INSERT INTO events (stream_id, version, type, data)
SELECT 'title-' || id, 1, 'TitleAdded', jsonb_build_object('id', id, 'title', title, 'authors', jsonb_build_array(author),
	'isbn', isbn, 'year', 1900 + i % 120, 'language', 'en', 'subjects', jsonb_build_array(subject))
FROM bench_titles WHERE i BETWEEN $1 AND $2 ORDER BY i`,
	`INSERT INTO events (stream_id, version, type, data)
SELECT 'title-' || id, 1 + k, 'CopyAdded', jsonb_build_object('bookId', 'c' || substr(id, 2) || '-' || k, 'barcode', 'B' || substr(id, 2) || k)
FROM bench_titles, generate_series(1, ` + fmt.Sprint(TitlesCopies) + `) AS k WHERE i BETWEEN $1 AND $2 ORDER BY i, k`,
	`INSERT INTO events (stream_id, version, type, data, metadata)
SELECT 'book-c' || substr(id, 2) || '-' || k, 1, 'BookAdded', jsonb_build_object('id', 'c' || substr(id, 2) || '-' || k,
	'titleId', id, 'barcode', 'B' || substr(id, 2) || k, 'title', title, 'author', author), '{"schema":2}'
FROM bench_titles, generate_series(1, ` + fmt.Sprint(TitlesCopies) + `) AS k WHERE i BETWEEN $1 AND $2 ORDER BY i, k`,
	`INSERT INTO events (stream_id, version, type, data)
SELECT 'title-' || id, 1 + ` + fmt.Sprint(TitlesCopies) + ` + k, 'CopyLent',
	jsonb_build_object('bookId', 'c' || substr(id, 2) || '-' || k, 'memberId', 'm' || (i % 1000 + k))
FROM bench_titles, generate_series(1, ` + fmt.Sprint(TitlesCopies) + `) AS k WHERE i BETWEEN $1 AND $2 AND i % 3 = 0 ORDER BY i, k`,
	`INSERT INTO events (stream_id, version, type, data)
SELECT 'title-' || id, 2 + 2 * ` + fmt.Sprint(TitlesCopies) + `, 'TitleHoldPlaced',
	jsonb_build_object('titleId', id, 'memberId', 'w' || i, 'placedAt', '2026-01-01T00:00:00Z')
FROM bench_titles WHERE i BETWEEN $1 AND $2 AND i % 90 = 0 ORDER BY i`,
}

// TitlesPerTransaction is how many titles' events one transaction writes: the log's
// transactions are many, as a service's appends make them, so that the readers' plans (by
// transaction, then position) meet a log of the usual shape.
const TitlesPerTransaction = 1000

// TitlesTiming is one search's figures.
type TitlesTiming struct {
	What     string // what kind of search
	Path     string
	Titles   int // titles on the page
	Bytes    int // of the answer's body
	P50, P99 time.Duration
}

// TitlesResult is what the titles search measurement found.
type TitlesResult struct {
	Titles, Copies int
	Events         int64         // written
	Seed           time.Duration // writing the events
	CatchUp        time.Duration // from the events' commit to GET /titles answering, caught up
	Searches       []TitlesTiming
	// Env is the machine as the measurement began, with the load average after it.
	Env environment.Machine
}

// Measured reports whether the result holds figures.
func (r TitlesResult) Measured() bool { return len(r.Searches) > 0 }

// Titles starts a service on the empty database at databaseURL, writes the titles, waits for
// its catalog to build them, and times the searches.
func Titles(ctx context.Context, bin, databaseURL string, env environment.Machine) (TitlesResult, error) {
	res := TitlesResult{Titles: TitlesCount, Copies: TitlesCount * TitlesCopies, Env: env}
	svc, err := environment.StartService(ctx, bin, databaseURL, "REPLICA_ID=bench-titles")
	if err != nil {
		return res, err
	}
	defer svc.StopLogged(ctx, "the titles' service")
	if err := seedTitles(ctx, databaseURL, &res); err != nil {
		return res, err
	}
	environment.Logf("titles: %s titles and %s copies written (%s events) in %s", figures.Thousands(res.Titles),
		figures.Thousands(res.Copies), figures.Thousands(int(res.Events)), figures.FormatSeconds(res.Seed))
	api := workload.NewClient(svc.BaseURL, 1)
	defer api.HTTP.CloseIdleConnections()
	start := time.Now()
	if err := awaitTitles(ctx, svc, api); err != nil {
		return res, err
	}
	res.CatchUp = time.Since(start)
	environment.Logf("titles: built by the service's catalog in %s", figures.FormatSeconds(res.CatchUp))
	if res.Searches, err = timeSearches(ctx, api); err != nil {
		return res, err
	}
	res.Env.LoadAfter = environment.LoadAverage()
	return res, nil
}

// seedTitles writes the titles' events, TitlesPerTransaction titles a transaction, then has
// PostgreSQL analyze the log, as autovacuum would soon after.
func seedTitles(ctx context.Context, databaseURL string, res *TitlesResult) error {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	start := time.Now()
	if _, err := conn.Exec(ctx, titlesWords[0]); err != nil {
		return fmt.Errorf("the titles' words: %w", err)
	}
	if _, err := conn.Exec(ctx, titlesWords[1], TitlesCount, catalogAdjectives, catalogNouns, titlesPlaces, catalogFirstNames,
		catalogSurnameStarts, catalogSurnameEnds, titlesSubjects()); err != nil {
		return fmt.Errorf("the titles' words: %w", err)
	}
	for lo := 1; lo <= TitlesCount; lo += TitlesPerTransaction {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			for i, statement := range titlesEvents {
				tag, err := tx.Exec(ctx, statement, lo, lo+TitlesPerTransaction-1)
				if err != nil {
					return fmt.Errorf("writing titles %d on, statement %d: %w", lo, i+1, err)
				}
				res.Events += tag.RowsAffected()
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, statement := range []string{`DROP TABLE bench_titles`, `ANALYZE events`} {
		if _, err := conn.Exec(ctx, statement); err != nil {
			return fmt.Errorf("%s: %w", statement, err)
		}
	}
	res.Seed = time.Since(start)
	return nil
}

// titlesSubjects are the subjects: one per title, in turn.
func titlesSubjects() []string {
	subjects := make([]string, titlesSubjectsN)
	for i := range subjects {
		subjects[i] = fmt.Sprintf("%s %s", catalogNouns[i%len(catalogNouns)], []string{"studies", "history", "poetry"}[i%3])
	}
	return subjects
}

// awaitTitles polls until the catalog's build the service reads holds its lease, has read the
// whole log, and answers GET /titles (a build of the version before, which a fresh database's
// migrations made, keeps no titles: 503 until the service's own build takes over).
func awaitTitles(ctx context.Context, svc *environment.Service, api *workload.Client) error {
	deadline := time.Now().Add(titlesCatchUp)
	for {
		status, err := environment.FetchStatus(ctx, svc.BaseURL)
		c := status["catalog"]
		if err == nil && c.HoldsLease && c.Lag == 0 {
			a, err := api.Request(ctx, http.MethodGet, "/titles?limit=1", "")
			if err == nil && a.Status == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the catalog did not build %d titles within %s (last status %+v, %w): %s",
				TitlesCount, titlesCatchUp, c, err, svc.Output())
		}
		select { // polling /status, bounded by the deadline
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// titlesSearches are the searches timed, but the second page, whose cursor comes from the
// first: a word in one title in 23, an author's surname in one in 1,763, title titlesProbe's
// ISBN written with hyphens, the titles with a copy on the shelf, and the first page.
func titlesSearches() [][2]string {
	pick := func(words []string) string { return words[titlesProbe%len(words)] }
	isbn := fmt.Sprintf("978-0-%02d-%06d", titlesProbe/1_000_000%100, titlesProbe%1_000_000)
	return [][2]string{
		{"a common word (1 title in 23)", "/titles?" + url.Values{"q": {pick(catalogAdjectives)}}.Encode()},
		{"a rare word (an author's surname, 1 in 1,763)", "/titles?" + url.Values{"q": {pick(catalogSurnameStarts) + pick(catalogSurnameEnds)}}.Encode()},
		{"an ISBN, with hyphens", "/titles?q=" + isbn + "-" + isbnCheck(titlesProbe)},
		{"available=true", "/titles?available=true"},
		{"the first page", "/titles"},
	}
}

// isbnCheck is the check digit of the ISBN-13 of title i, as titlesSeed makes it.
func isbnCheck(i int) string {
	d := fmt.Sprintf("978%09d", i)
	sum := 0
	for k, r := range d {
		sum += int(r-'0') * (1 + 2*(k%2))
	}
	return fmt.Sprint((10 - sum%10) % 10)
}

// timeSearches times each search, then the page after the common word's first.
func timeSearches(ctx context.Context, api *workload.Client) ([]TitlesTiming, error) {
	var out []TitlesTiming
	var next string
	for i, s := range titlesSearches() {
		t, page, err := timeTitles(ctx, api, s[0], s[1])
		if err != nil {
			return out, err
		}
		if i == 0 {
			next = page.Next
		}
		out = append(out, t)
	}
	if next == "" {
		return out, fmt.Errorf("the common word's first page has no next")
	}
	t, _, err := timeTitles(ctx, api, "the common word's second page (after)", titlesSearches()[0][1]+"&"+url.Values{"after": {next}}.Encode())
	if err != nil {
		return out, err
	}
	out = append(out, t)
	// Every page is full but the rare word's (some fifty titles) and the ISBN's (one).
	for i, t := range out {
		full := t.Titles == 100
		switch i {
		case 1:
			full = t.Titles > 0 && t.Titles < 100
		case 2:
			full = t.Titles == 1
		}
		if !full {
			return out, fmt.Errorf("%s found %d titles: not the titles written", t.What, t.Titles)
		}
	}
	return out, nil
}

// titlesPage is what the timing reads of GET /titles.
type titlesPage struct {
	Titles []json.RawMessage `json:"titles"`
	Next   string            `json:"next"`
}

// timeTitles asks for path TitlesWarmups times untimed, then TitlesRequests times timed, one
// at a time, wanting 200 each time.
func timeTitles(ctx context.Context, api *workload.Client, what, path string) (TitlesTiming, titlesPage, error) {
	t := TitlesTiming{What: what, Path: path}
	var lat []time.Duration
	var page titlesPage
	for i := range TitlesWarmups + TitlesRequests {
		page = titlesPage{}
		start := time.Now()
		a, err := api.Request(ctx, http.MethodGet, path, "")
		if err != nil {
			return t, page, fmt.Errorf("GET %s: %w", path, err)
		}
		if i >= TitlesWarmups {
			lat = append(lat, time.Since(start))
		}
		if a.Status != http.StatusOK {
			return t, page, fmt.Errorf("GET %s: %d %s", path, a.Status, a.Body)
		}
		if err := json.Unmarshal(a.Body, &page); err != nil {
			return t, page, fmt.Errorf("GET %s: %w", path, err)
		}
		t.Titles, t.Bytes = len(page.Titles), len(a.Body)
	}
	slices.Sort(lat)
	t.P50, t.P99 = figures.Percentile(lat, 0.50), figures.Percentile(lat, 0.99)
	environment.Logf("titles: %s, GET %s: %d titles, %d bytes, p50 %s, p99 %s", what, path, t.Titles, t.Bytes,
		figures.FormatLatency(t.P50), figures.FormatLatency(t.P99))
	return t, page, nil
}
