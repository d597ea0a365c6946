package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/books"
	"library/internal/catalog"
	"library/internal/catalog/cataloghttp"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/httpapi"
	"library/internal/processor"
)

// behind is a log of books events and a catalog that has handled only the first: a read with
// minPosition 1 is served at once, one with a later position waits until catchUp.
type behind struct {
	log     *eventstore.Memory
	catalog writable
	events  []eventstore.Event
}

func newBehind(t *testing.T, n int) *behind {
	t.Helper()
	ctx := context.Background()
	b := &behind{log: eventstore.NewMemory(nil), catalog: memoryCatalog(t)}
	for i := range n {
		data, err := json.Marshal(books.BookAdded{ID: fmt.Sprint(i), Title: "Book", Author: "Author"})
		require.NoError(t, err)
		got, err := b.log.Append(ctx, fmt.Sprintf("book-%d", i), 0, []eventstore.NewEvent{{Type: books.BookAdded{}.EventType(), Data: data}})
		require.NoError(t, err)
		b.events = append(b.events, got...)
	}
	require.NoError(t, b.catalog.Apply(ctx, processor.Position{}, processor.Position{Checkpoint: b.events[0].Checkpoint()}, b.events[:1]))
	return b
}

// catchUp has the catalog handle every event.
func (b *behind) catchUp(t *testing.T) {
	t.Helper()
	from := processor.Position{Checkpoint: b.events[0].Checkpoint()}
	to := processor.Position{Checkpoint: b.events[len(b.events)-1].Checkpoint()}
	require.NoError(t, b.catalog.Apply(context.Background(), from, to, b.events[1:]))
}

// api serves GET /books from it, reads waiting for up to an hour (so that a wait ends only
// when the catalog catches up, or the request does) and at most waits of them at once.
func (b *behind) api(waits *catalog.WaitLimit) http.Handler {
	query := catalog.Query{Catalog: b.catalog, Log: b.log, Wait: time.Hour, Waits: waits}
	return httpapi.New(httpapi.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, cataloghttp.Routes{Query: query})
}

// answer is one request's answer.
type answer struct {
	status int
	header http.Header
	code   errs.Code
	detail string
}

// get sends GET path from addr on ctx, and sends its answer on the channel it returns.
func get(ctx context.Context, api http.Handler, path, addr string) <-chan answer {
	out := make(chan answer, 1)
	send(ctx, api, path, addr, out)
	return out
}

// send sends GET path from addr on ctx, and its answer, once it comes, on out.
func send(ctx context.Context, api http.Handler, path, addr string, out chan<- answer) {
	go func() {
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, path, nil)
		req.RemoteAddr = net.JoinHostPort(addr, "40000")
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, req)
		a := answer{status: rec.Code, header: rec.Header()}
		var p httpapi.Problem
		if json.Unmarshal(rec.Body.Bytes(), &p) == nil {
			a.code, a.detail = p.Code, p.Detail
		}
		out <- a
	}()
}

// soon is the answer that arrives within 10 s: one that does not wait.
func soon(t *testing.T, answers <-chan answer) answer {
	t.Helper()
	select {
	case a := <-answers:
		return a
	case <-time.After(10 * time.Second):
		t.Fatal("no answer within 10s: the read waited instead of being answered at once")
		return answer{}
	}
}

// CATALOG_MAX_WAITS: with every place taken by reads that can't finish yet, one more read that
// would wait is answered NotCaughtUp at once (503 with Retry-After), while a read that need not
// wait is served; places are given back as reads end.
func TestCatalogWaitLimit(t *testing.T) {
	t.Parallel()
	const places = 3 // a share of 1 each: one client, one place
	b := newBehind(t, 3)
	waits := catalog.NewWaitLimit(places)
	api := b.api(waits)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var waiting []<-chan answer
	for i := range places {
		waiting = append(waiting, get(ctx, api, "/books?minPosition=2", fmt.Sprintf("192.0.2.%d", i+1)))
	}
	require.Eventually(t, func() bool { return waits.Waiting() == places }, 10*time.Second, time.Millisecond, "every place taken")

	a := soon(t, get(context.Background(), api, "/books?minPosition=3", "198.51.100.1"))
	require.Equal(t, http.StatusServiceUnavailable, a.status)
	require.Equal(t, errs.NotCaughtUp, a.code)
	require.Equal(t, "1", a.header.Get("Retry-After"))
	require.Equal(t, http.StatusOK, soon(t, get(context.Background(), api, "/books?minPosition=1", "198.51.100.1")).status,
		"a read whose position is reached takes no place")

	cancel()
	for _, w := range waiting {
		soon(t, w)
	}
	require.Equal(t, 0, waits.Waiting(), "places given back")
	again := get(context.Background(), api, "/books?minPosition=3", "198.51.100.1")
	require.Eventually(t, func() bool { return waits.Waiting() == 1 }, 10*time.Second, time.Millisecond, "a place is free again: the read waits")
	b.catchUp(t)
	require.Equal(t, http.StatusOK, soon(t, again).status)
}

// One client can't take everyone's places: 64 reads of one address that would wait, with
// CATALOG_MAX_WAITS 64, hold its share of them (an eighth) and the rest are answered
// NotCaughtUp at once, while another client's read still waits, and is served when the catalog
// catches up.
func TestCatalogWaitShare(t *testing.T) {
	t.Parallel()
	const places, share = 64, 8
	b := newBehind(t, 2)
	waits := catalog.NewWaitLimit(places)
	api := b.api(waits)

	flood := make(chan answer, places)
	for range places {
		send(context.Background(), api, "/books?minPosition=2", "203.0.113.7", flood)
	}
	for refused := range places - share {
		var a answer
		select {
		case a = <-flood:
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of the flood's reads answered at once, want %d; %d wait", refused, places-share, waits.Waiting())
		}
		require.Equal(t, http.StatusServiceUnavailable, a.status)
		require.Equal(t, errs.NotCaughtUp, a.code)
	}
	require.Equal(t, share, waits.Waiting(), "the flood holds its share")

	other := get(context.Background(), api, "/books?minPosition=2", "198.51.100.9")
	require.Eventually(t, func() bool { return waits.Waiting() == share+1 }, 10*time.Second, time.Millisecond, "another client's read waits")
	b.catchUp(t)
	require.Equal(t, http.StatusOK, soon(t, other).status)
	for range share {
		require.Equal(t, http.StatusOK, soon(t, flood).status)
	}
	require.Equal(t, 0, waits.Waiting())
}

// A minPosition past the log's last event is no position the service returned: it is answered
// 400 InvalidRequest at once, without a wait or a place, on an empty log too; one the log has,
// not yet handled, still waits.
func TestCatalogMinPositionPastTheLog(t *testing.T) {
	t.Parallel()
	b := newBehind(t, 3)
	waits := catalog.NewWaitLimit(1)
	api := b.api(waits)
	for _, position := range []string{"4", "999999999", "9223372036854775807"} {
		a := soon(t, get(context.Background(), api, "/books?minPosition="+position, "192.0.2.1"))
		require.Equal(t, http.StatusBadRequest, a.status, position)
		require.Equal(t, errs.InvalidRequest, a.code, position)
		require.Contains(t, a.detail, "minPosition", position)
		require.Equal(t, 0, waits.Waiting())
	}

	empty := &behind{log: eventstore.NewMemory(nil), catalog: memoryCatalog(t)}
	a := soon(t, get(context.Background(), empty.api(nil), "/books?minPosition=1", "192.0.2.1"))
	require.Equal(t, http.StatusBadRequest, a.status, "an empty log has no position 1")

	waiting := get(context.Background(), api, "/books?minPosition=3", "192.0.2.1")
	require.Eventually(t, func() bool { return waits.Waiting() == 1 }, 10*time.Second, time.Millisecond, "a position the log has waits")
	b.catchUp(t)
	require.Equal(t, http.StatusOK, soon(t, waiting).status)
}
