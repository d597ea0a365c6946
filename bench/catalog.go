package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// The catalog measurement: GET /books at catalogBooks books, on a database of its own. A
// service process is started on the empty database (so that it migrates it), the books are
// written straight into the events table as BookAdded events in one statement, the service's
// catalog reads them (until /status shows no lag), and then the first page (the default limit)
// and a search of two words are asked for catalogRequests times each, one at a time.

const (
	catalogBooks    = 100_000
	catalogRequests = 200
	catalogWarmups  = 10
	catalogCatchUp  = 3 * time.Minute // the most to wait for the catalog to read the books
)

// The words of the books' titles and authors. Book i takes word i mod n of each list; the
// lists' lengths are coprime, so a title word and a surname are together in few books.
var (
	catalogAdjectives = []string{"Silent", "Broken", "Hidden", "Golden", "Frozen", "Crimson", "Distant", "Burning",
		"Wandering", "Secret", "Lost", "Final", "Ancient", "Winter", "Iron", "Glass", "Quiet", "Last", "Bright", "Dark",
		"Hollow", "Wild", "Sacred"} // 23
	catalogNouns = []string{"River", "Garden", "Empire", "Mirror", "Harbour", "Forest", "Kingdom", "Letters", "Orchard",
		"Station", "Island", "Country", "City", "Ocean", "Lantern", "Shadow", "Valley", "Tower", "Storm", "Voyage",
		"Memory", "Night", "House", "Road", "Fire", "Sea", "Stone", "Crown", "Door"} // 29
	catalogFirstNames = []string{"Anna", "Peter", "Maria", "John", "Elena", "Tomás", "Ingrid", "Kenji", "Amara", "Lucas",
		"Sofia", "Omar", "Greta", "Ivan", "Chloé", "Mateo", "Leila", "Hugo", "Nadia", "Felix", "Yuki", "Rosa", "Emil",
		"Zara", "Olga", "Pablo", "Mira", "Dev", "Hana", "Ruth", "Ali"} // 31
	catalogSurnameStarts = []string{"Mar", "Bel", "Dor", "Kal", "Ves", "Tor", "Lin", "Hal", "Sor", "Var", "Nor", "Fen",
		"Gal", "Ber", "Cal", "Dal", "Eck", "Far", "Gor", "Har", "Ing", "Jar", "Kor", "Lor", "Mel", "Nel", "Orm", "Pel",
		"Quin", "Ros", "Sal", "Tal", "Ulm", "Val", "Wen", "Yor", "Zan", "Ash", "Brin", "Cor", "Dun"} // 41
	catalogSurnameEnds = []string{"vik", "berg", "son", "sen", "ova", "ez", "ini", "escu", "ski", "ström", "ard", "ton",
		"ley", "wick", "holm", "dahl", "ford", "mann", "well", "by", "quist", "land", "stad", "rup", "gaard", "heim",
		"rud", "ås", "lund", "feld", "stein", "burg", "thal", "bach", "dorf", "hof", "ner", "ler", "ritz", "ich", "ek",
		"ak", "oz"} // 43
)

// catalogInsert writes books 1 to $1 as BookAdded events, version 1 of streams book-cat-NNNNNN,
// with the data the service writes ({"id","title","author"}). Their metadata stays empty: no
// command will load these streams.
const catalogInsert = `INSERT INTO events (stream_id, version, type, data)
SELECT 'book-' || id, 1, 'BookAdded', jsonb_build_object('id', id, 'title', title, 'author', author)
FROM (
	SELECT 'cat-' || lpad(i::text, 6, '0') AS id,
		($2::text[])[1 + i % cardinality($2::text[])] || ' ' || ($3::text[])[1 + i % cardinality($3::text[])] AS title,
		($4::text[])[1 + i % cardinality($4::text[])] || ' ' || ($5::text[])[1 + i % cardinality($5::text[])]
			|| ($6::text[])[1 + i % cardinality($6::text[])] AS author
	FROM generate_series(1, $1::int) AS i
) AS books`

// catalogQuery is the search measured: book 12345's title adjective and its author's surname,
// as they are written (the search ignores case). Books 12345 + k × 23 × 41 × 43 have both.
func catalogQuery() string {
	const i = 12345
	pick := func(words []string) string { return words[i%len(words)] }
	return pick(catalogAdjectives) + " " + pick(catalogSurnameStarts) + pick(catalogSurnameEnds)
}

// catalogTiming is one request's figures.
type catalogTiming struct {
	Path     string
	Books    int // books on the page
	Bytes    int // of the answer's body
	P50, P99 time.Duration
}

// catalogResult is what the catalog measurement found.
type catalogResult struct {
	Books     int
	Seed      time.Duration // writing the events
	CatchUp   time.Duration // from the events' commit to the catalog's lag 0
	FirstPage catalogTiming
	Search    catalogTiming
}

// measureCatalog starts a service on the empty database at databaseURL, writes the books, waits
// for its catalog, and times the two requests.
func measureCatalog(ctx context.Context, bin, databaseURL string) (catalogResult, error) {
	res := catalogResult{Books: catalogBooks}
	svc, err := startService(ctx, bin, databaseURL)
	if err != nil {
		return res, err
	}
	defer func() {
		if err := svc.Stop(context.WithoutCancel(ctx)); err != nil {
			logf("stopping the catalog's service: %v", err)
		}
	}()
	if err := seedCatalog(ctx, databaseURL, &res); err != nil {
		return res, err
	}
	logf("catalog: %s books written in %s", thousands(catalogBooks), formatSeconds(res.Seed))
	caughtUp := time.Now()
	if err := awaitCatalog(ctx, svc); err != nil {
		return res, err
	}
	res.CatchUp = time.Since(caughtUp)
	logf("catalog: read by the service in %s", formatSeconds(res.CatchUp))

	api := newAPIClient(svc.BaseURL, 1)
	defer api.http.CloseIdleConnections()
	if res.FirstPage, err = timeCatalog(ctx, api, "/books"); err != nil {
		return res, err
	}
	if res.Search, err = timeCatalog(ctx, api, "/books?"+url.Values{"q": {catalogQuery()}}.Encode()); err != nil {
		return res, err
	}
	if res.FirstPage.Books != 100 || res.Search.Books == 0 {
		return res, fmt.Errorf("the first page has %d books and the search found %d: not the catalog written", res.FirstPage.Books, res.Search.Books)
	}
	return res, nil
}

// seedCatalog writes the books' events in one statement.
func seedCatalog(ctx context.Context, databaseURL string, res *catalogResult) error {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	start := time.Now()
	if _, err := conn.Exec(ctx, catalogInsert, catalogBooks, catalogAdjectives, catalogNouns, catalogFirstNames,
		catalogSurnameStarts, catalogSurnameEnds); err != nil {
		return fmt.Errorf("writing %d books: %w", catalogBooks, err)
	}
	res.Seed = time.Since(start)
	return nil
}

// awaitCatalog polls /status until the catalog has read the whole log.
func awaitCatalog(ctx context.Context, svc *service) error {
	deadline := time.Now().Add(catalogCatchUp)
	for {
		status, err := fetchStatus(ctx, svc.BaseURL)
		if err == nil && status["catalog"].HoldsLease && status["catalog"].Lag == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the catalog did not read %d books within %s (last status %+v, %w): %s",
				catalogBooks, catalogCatchUp, status["catalog"], err, svc.output())
		}
		time.Sleep(100 * time.Millisecond) // polling /status, bounded by the deadline
	}
}

// timeCatalog asks for path catalogWarmups times untimed, then catalogRequests times timed, one
// at a time, wanting 200 each time.
func timeCatalog(ctx context.Context, api *apiClient, path string) (catalogTiming, error) {
	t := catalogTiming{Path: path}
	var lat []time.Duration
	for i := range catalogWarmups + catalogRequests {
		start := time.Now()
		a, err := api.request(ctx, http.MethodGet, path, "")
		if err != nil {
			return t, fmt.Errorf("GET %s: %w", path, err)
		}
		if i >= catalogWarmups {
			lat = append(lat, time.Since(start))
		}
		if a.status != http.StatusOK {
			return t, fmt.Errorf("GET %s: %d %s", path, a.status, a.body)
		}
		var page struct {
			Books []json.RawMessage `json:"books"`
		}
		if err := json.Unmarshal(a.body, &page); err != nil {
			return t, fmt.Errorf("GET %s: %w", path, err)
		}
		t.Books, t.Bytes = len(page.Books), len(a.body)
	}
	slices.Sort(lat)
	t.P50, t.P99 = percentile(lat, 0.50), percentile(lat, 0.99)
	logf("catalog: GET %s: %d books, %d bytes, p50 %s, p99 %s", path, t.Books, t.Bytes, formatLatency(t.P50), formatLatency(t.P99))
	return t, nil
}

// catalogSection is the catalog's figures.
func (r report) catalogSection() section {
	c := r.Catalog
	row := func(what string, t catalogTiming) []string {
		return []string{what, fmt.Sprintf("`GET %s`", t.Path), fmt.Sprint(t.Books), fmt.Sprint(t.Bytes), formatLatency(t.P50), formatLatency(t.P99)}
	}
	return section{
		title: "Catalog",
		notes: []string{
			fmt.Sprintf("A service process of its own, at its default settings, on a database of its own holding %s books: `BookAdded` events written straight into the events table in one statement (%s), which the service's catalog then read into its view model (%s, from the commit to `/status` showing no lag). Titles are an adjective and a noun, authors a first name and a surname, from word lists of coprime lengths, so that the search's two words (a title's adjective, an author's surname) are together in a few books only. Each request is made %d times, one at a time on one keep-alive connection, after %d untimed.",
				thousands(c.Books), formatSeconds(c.Seed), formatSeconds(c.CatchUp), catalogRequests, catalogWarmups),
		},
		align:  "|---|---|--:|--:|--:|--:|",
		header: []string{"request", "as sent", "books", "bytes", "p50", "p99"},
		rows:   [][]string{row("first page (limit 100)", c.FirstPage), row("search, two words", c.Search)},
	}
}

func formatSeconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// thousands writes n, 0 or more, with a comma between groups of three digits: 100,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
