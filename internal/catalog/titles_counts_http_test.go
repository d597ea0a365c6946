package catalog_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"pgregory.net/rapid"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// countsMembers are the members of the counts property, each with an account.
var countsMembers = []string{"ann", "ben", "cid", "dot", "eve"}

// countsWorld is a title of the counts property, on a service that runs in memory.
type countsWorld struct {
	a      *apitest.API
	title  string
	isbn   string
	copies []string
	n      *int // numbers ids across runs
}

// The catalog's counts of a title are those GET /titles/{titleId} shows, after any sequence of
// copies added, lent and returned, holds placed on the title or on one copy, cancelled, and
// hold shelf time run out, through the service (its commands, its sagas and its catalog).
func TestHTTPTitleCountsAreTheTitles(t *testing.T) {
	t.Parallel()
	clock := apitest.NewClock()
	// Members may borrow however much they owe, and as many books as the runs lend them.
	cfg := apitest.FastBackground(app.Config{MaxLoans: 1_000_000, BlockAt: 1_000_000_000, Tuning: app.Tuning{Now: clock.Now}})
	a := apitest.Launch(t, cfg, apitest.ServiceLogger(t, cfg)).API("memory")
	for _, m := range countsMembers {
		call(t, a, http.MethodPut, "/accounts/"+m, apitest.Obj{"name": m})
	}
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		w := &countsWorld{a: a, title: fmt.Sprintf("counted-%d", n), n: &n}
		w.isbn = apitest.ISBNFor(w.title)
		w.send(rt, http.MethodPost, "/titles", apitest.Obj{"id": w.title, "title": "Counted", "authors": []string{"A"}, "isbn": w.isbn}, "")
		rt.Repeat(map[string]func(*rapid.T){
			"add":         w.addCopy,
			"lend":        w.lend,
			"return":      w.giveBack,
			"hold":        w.hold,
			"hold a copy": w.holdCopy,
			"cancel":      w.cancel,
			"expire":      func(*rapid.T) { clock.Advance(73 * time.Hour) }, // past HOLD_PICKUP: the hold shelf's timers fire
			"check":       w.check,
		})
		w.check(rt)
	})
}

// send sends a command, with an Idempotency-Key unless key is "-", and wants a 2xx, or a
// refusal the rules give (409, or 404 for a hold that is not there).
func (w *countsWorld) send(t *rapid.T, method, path string, body apitest.Obj, key string) {
	var headers []string
	if key != "-" {
		*w.n++
		headers = []string{"Idempotency-Key", fmt.Sprintf("counts-%d", *w.n)}
	}
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			t.Fatalf("%v", err)
		}
	}
	r, err := w.a.TrySend(method, path, raw, headers...)
	if err != nil || (r.Status >= 300 && r.Status != http.StatusConflict && r.Status != http.StatusNotFound) {
		t.Fatalf("%s %s: %d %s %v", method, path, r.Status, r.Body, err)
	}
}

func (w *countsWorld) addCopy(t *rapid.T) {
	id := fmt.Sprintf("%s-c%d", w.title, len(w.copies))
	w.send(t, http.MethodPost, "/titles/"+w.title+"/copies", apitest.Obj{"id": id, "barcode": "B" + id}, "")
	w.copies = append(w.copies, id)
}

func (w *countsWorld) lend(t *rapid.T) {
	if len(w.copies) == 0 {
		return // no copy: nothing to do
	}
	c := rapid.SampledFrom(w.copies).Draw(t, "copy")
	m := rapid.SampledFrom(countsMembers).Draw(t, "member")
	*w.n++
	w.send(t, http.MethodPost, "/books/"+c+"/loans", apitest.Obj{"loanId": fmt.Sprintf("loan-%d", *w.n), "memberId": m}, "")
}

func (w *countsWorld) giveBack(t *rapid.T) {
	if len(w.copies) == 0 {
		return // no copy: nothing to do
	}
	c := rapid.SampledFrom(w.copies).Draw(t, "copy")
	var book struct {
		Loan *struct {
			LoanID string `json:"loanId"`
		} `json:"loan"`
	}
	r, err := w.a.TrySend(http.MethodGet, "/books/"+c, nil)
	if err != nil || json.Unmarshal(r.Body, &book) != nil {
		t.Fatalf("GET /books/%s: %v %s", c, err, r.Body)
	}
	if book.Loan == nil {
		return // not lent: nothing to do
	}
	w.send(t, http.MethodPost, "/books/"+c+"/returns", apitest.Obj{"loanId": book.Loan.LoanID}, "")
}

func (w *countsWorld) hold(t *rapid.T) {
	m := rapid.SampledFrom(countsMembers).Draw(t, "member")
	w.send(t, http.MethodPost, "/titles/"+w.title+"/holds", apitest.Obj{"memberId": m}, "")
}

func (w *countsWorld) holdCopy(t *rapid.T) {
	if len(w.copies) == 0 {
		return // no copy: nothing to do
	}
	c := rapid.SampledFrom(w.copies).Draw(t, "copy")
	m := rapid.SampledFrom(countsMembers).Draw(t, "member")
	w.send(t, http.MethodPost, "/books/"+c+"/holds", apitest.Obj{"memberId": m}, "")
}

func (w *countsWorld) cancel(t *rapid.T) {
	m := rapid.SampledFrom(countsMembers).Draw(t, "member")
	w.send(t, http.MethodDelete, "/titles/"+w.title+"/holds/"+m, nil, "-")
}

// check waits until the catalog shows the title with the counts GET /titles/{titleId} shows:
// the catalog is behind the log, never apart from it.
func (w *countsWorld) check(t *rapid.T) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		shown := w.shown(t)
		listed, ok := w.listed(t)
		if ok && listed == shown {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /titles lists %+v (listed: %v), GET /titles/%s counts %+v", listed, ok, w.title, shown)
		}
		time.Sleep(10 * time.Millisecond) // polling the catalog, bounded by the deadline
	}
}

// shown are GET /titles/{titleId}'s counts.
func (w *countsWorld) shown(t *rapid.T) apiTitleCount {
	var title struct {
		Counts apiTitleCount `json:"counts"`
	}
	r, err := w.a.TrySend(http.MethodGet, "/titles/"+w.title, nil)
	if err != nil || r.Status != http.StatusOK || json.Unmarshal(r.Body, &title) != nil {
		t.Fatalf("GET /titles/%s: %d %s %v", w.title, r.Status, r.Body, err)
	}
	return title.Counts
}

// listed are the title's counts as GET /titles, searching its ISBN, lists them; ok is false
// while the catalog has not read the title's TitleAdded yet.
func (w *countsWorld) listed(t *rapid.T) (counts apiTitleCount, ok bool) {
	var l titleList
	r, err := w.a.TrySend(http.MethodGet, "/titles?"+url.Values{"q": {w.isbn}}.Encode(), nil)
	if err != nil || r.Status != http.StatusOK || json.Unmarshal(r.Body, &l) != nil || len(l.Titles) > 1 {
		t.Fatalf("GET /titles?q=%s: %d %s %v", w.isbn, r.Status, r.Body, err)
	}
	if len(l.Titles) == 0 {
		return apiTitleCount{}, false
	}
	if l.Titles[0].ID != w.title {
		t.Fatalf("GET /titles?q=%s found %s", w.isbn, l.Titles[0].ID)
	}
	return l.Titles[0].Counts, true
}
