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

// The catalog measurement: GET /books at CatalogBooks books, on a database of its own. A
// service process is started on the empty database (so that it migrates it), the books are
// written straight into the events table as BookAdded events in one statement, the service's
// catalog reads them (until /status shows no lag), and then the first page (the default limit)
// and a search of two words are asked for CatalogRequests times each, one at a time.
//
// The sizes and labels of the measurement:
const (
	CatalogBooks    = 100_000
	CatalogRequests = 200
	CatalogWarmups  = 10
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

// CatalogTiming is one request's figures.
type CatalogTiming struct {
	Path     string
	Books    int // books on the page
	Bytes    int // of the answer's body
	P50, P99 time.Duration
}

// CatalogResult is what the catalog measurement found.
type CatalogResult struct {
	Books     int
	Seed      time.Duration // writing the events
	CatchUp   time.Duration // from the events' commit to the catalog's lag 0
	FirstPage CatalogTiming
	Search    CatalogTiming
}

// Catalog starts a service on the empty database at databaseURL, writes the books, waits
// for its catalog, and times the two requests.
func Catalog(ctx context.Context, bin, databaseURL string) (CatalogResult, error) {
	res := CatalogResult{Books: CatalogBooks}
	svc, err := environment.StartService(ctx, bin, databaseURL)
	if err != nil {
		return res, err
	}
	defer svc.StopLogged(ctx, "the catalog's service")
	if err := seedCatalog(ctx, databaseURL, &res); err != nil {
		return res, err
	}
	environment.Logf("catalog: %s books written in %s", figures.Thousands(CatalogBooks), figures.FormatSeconds(res.Seed))
	caughtUp := time.Now()
	if err := awaitCatalog(ctx, svc); err != nil {
		return res, err
	}
	res.CatchUp = time.Since(caughtUp)
	environment.Logf("catalog: read by the service in %s", figures.FormatSeconds(res.CatchUp))

	api := workload.NewClient(svc.BaseURL, 1)
	defer api.HTTP.CloseIdleConnections()
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
func seedCatalog(ctx context.Context, databaseURL string, res *CatalogResult) error {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	start := time.Now()
	if _, err := conn.Exec(ctx, catalogInsert, CatalogBooks, catalogAdjectives, catalogNouns, catalogFirstNames,
		catalogSurnameStarts, catalogSurnameEnds); err != nil {
		return fmt.Errorf("writing %d books: %w", CatalogBooks, err)
	}
	res.Seed = time.Since(start)
	return nil
}

// awaitCatalog polls /status until the catalog has read the whole log.
func awaitCatalog(ctx context.Context, svc *environment.Service) error {
	deadline := time.Now().Add(catalogCatchUp)
	for {
		status, err := environment.FetchStatus(ctx, svc.BaseURL)
		if err == nil && status["catalog"].HoldsLease && status["catalog"].Lag == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the catalog did not read %d books within %s (last status %+v, %w): %s",
				CatalogBooks, catalogCatchUp, status["catalog"], err, svc.Output())
		}
		time.Sleep(100 * time.Millisecond) // polling /status, bounded by the deadline
	}
}

// timeCatalog asks for path CatalogWarmups times untimed, then CatalogRequests times timed, one
// at a time, wanting 200 each time.
func timeCatalog(ctx context.Context, api *workload.Client, path string) (CatalogTiming, error) {
	t := CatalogTiming{Path: path}
	var lat []time.Duration
	for i := range CatalogWarmups + CatalogRequests {
		start := time.Now()
		a, err := api.Request(ctx, http.MethodGet, path, "")
		if err != nil {
			return t, fmt.Errorf("GET %s: %w", path, err)
		}
		if i >= CatalogWarmups {
			lat = append(lat, time.Since(start))
		}
		if a.Status != http.StatusOK {
			return t, fmt.Errorf("GET %s: %d %s", path, a.Status, a.Body)
		}
		var page struct {
			Books []json.RawMessage `json:"books"`
		}
		if err := json.Unmarshal(a.Body, &page); err != nil {
			return t, fmt.Errorf("GET %s: %w", path, err)
		}
		t.Books, t.Bytes = len(page.Books), len(a.Body)
	}
	slices.Sort(lat)
	t.P50, t.P99 = figures.Percentile(lat, 0.50), figures.Percentile(lat, 0.99)
	environment.Logf("catalog: GET %s: %d books, %d bytes, p50 %s, p99 %s", path, t.Books, t.Bytes, figures.FormatLatency(t.P50), figures.FormatLatency(t.P99))
	return t, nil
}
