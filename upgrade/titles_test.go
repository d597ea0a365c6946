//go:build upgrade

package upgrade

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"

	bookdomain "library/internal/books"
	"library/internal/testkit/proctest"
)

// adoptionWait bounds the wait for the adoption saga to list the books of the release before
// on their titles.
const adoptionWait = 30 * time.Second

// everyBookIsACopy checks the upgrade to titles and copies, which this build makes by itself
// with no manual step: every book the release before added is a copy of a title, and the books
// whose titles and authors are the same once normalised ("Dune" by Frank Herbert, and "Dune "
// by frank herbert) are copies of one title, which GET /titles/{titleId} answers with all of
// them, in the order they were added. The titles are written by the adoption saga, in the
// background: it waits for each one until adoptionWait.
func everyBookIsACopy(c client) {
	c.t.Helper()
	copies := map[string][]string{}
	for _, b := range books {
		title := titleOf(c, b.id)
		copies[title] = append(copies[title], b.id)
	}
	dune := titleOf(c, "dune-1")
	if want := []string{"dune-1", "dune-2", "dune-3"}; !slices.Equal(copies[dune], want) {
		c.t.Fatalf("the books of one title and author are copies of different titles: %s has %v, want %v (all: %v)", dune, copies[dune], want, copies)
	}
	for title, want := range copies {
		listsItsCopies(c, title, want)
	}
}

// titleOf is the id of the title the book is a copy of: the one GET /books/{bookId} shows,
// when it shows one (titleId); else the one this build gives a book of the release before (its
// upcaster's bookdomain.TitleIDOf, of the title and author GET /books/{bookId} shows), which GET
// /titles/{titleId} must then answer for the check to pass.
func titleOf(c client, bookID string) string {
	c.t.Helper()
	a := c.do([]int{http.StatusOK}, http.MethodGet, "/books/"+bookID, "")
	var book struct {
		TitleID string `json:"titleId"`
		Title   string `json:"title"`
		Author  string `json:"author"`
	}
	if err := json.Unmarshal([]byte(a.Body), &book); err != nil {
		c.t.Fatalf("GET /books/%s: %v: %s", bookID, err, a.Body)
	}
	if book.TitleID != "" {
		return book.TitleID
	}
	return bookdomain.TitleIDOf(book.Title, book.Author)
}

// listsItsCopies waits until GET /titles/{titleId} lists the copies want, in their order, and
// fails the test if it does not within adoptionWait.
func listsItsCopies(c client, titleID string, want []string) {
	c.t.Helper()
	path := "/titles/" + titleID
	deadline := time.Now().Add(adoptionWait)
	for {
		a, err := proctest.Call(c.http, http.MethodGet, c.p.URL(path), "")
		got := fmt.Sprint(err)
		if err == nil {
			got = fmt.Sprintf("%d %s", a.Status, a.Body)
			var title struct {
				Copies []struct {
					ID string `json:"id"`
				} `json:"copies"`
			}
			if a.Status == http.StatusOK && json.Unmarshal([]byte(a.Body), &title) == nil {
				ids := make([]string, 0, len(title.Copies))
				for _, cp := range title.Copies {
					ids = append(ids, cp.ID)
				}
				if slices.Equal(ids, want) {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("GET %s did not list the copies %v within %s: %s", path, want, adoptionWait, got)
		}
		time.Sleep(50 * time.Millisecond) // polling for the adoption saga, bounded by the deadline
	}
}

// holdsOnTheCopy checks the upgrade's promise about the holds the release before placed on one
// copy: cat's, then dan's, on dune-1 (ben's was cancelled), while dune-2 and dune-3 stood on
// the shelf. They wanted the book, not that copy: their holds are holds on Dune now, in their
// order, and the copies on the shelf fill them: cat, first, has one held for her, dan the other.
func holdsOnTheCopy(c client) {
	c.t.Helper()
	dune := titleOf(c, "dune-1")
	deadline := time.Now().Add(adoptionWait)
	for {
		a, err := proctest.Call(c.http, http.MethodGet, c.p.URL("/titles/"+dune+"/holds"), "")
		got := fmt.Sprint(err)
		if err == nil {
			got = fmt.Sprintf("%d %s", a.Status, a.Body)
			var q struct {
				Waiting []json.RawMessage `json:"waiting"`
				Ready   []struct {
					MemberID string `json:"memberId"`
					BookID   string `json:"bookId"`
				} `json:"ready"`
			}
			if a.Status == http.StatusOK && json.Unmarshal([]byte(a.Body), &q) == nil && len(q.Waiting) == 0 && len(q.Ready) == 2 {
				ready := []string{q.Ready[0].MemberID + ":" + q.Ready[0].BookID, q.Ready[1].MemberID + ":" + q.Ready[1].BookID}
				slices.Sort(ready)
				if want := []string{"cat:dune-2", "dan:dune-3"}; !slices.Equal(ready, want) {
					c.t.Fatalf("the holds on dune-1 became %v on Dune, want %v: %s", ready, want, a.Body)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("Dune's copies on the shelf were not held for cat and dan within %s: %s", adoptionWait, got)
		}
		time.Sleep(50 * time.Millisecond) // polling for the adoption saga, bounded by the deadline
	}
}

// reshaped are the reads whose answers the upgrade changes on purpose: cat and dan's holds on
// dune-1 are holds on Dune now, filled by dune-2 and dune-3, which stood on the shelf
// (holdsOnTheCopy checks them).
func reshaped(path string) bool {
	switch path {
	case "/books", "/holds", "/holds?status=waiting", "/books/dune-2", "/books/dune-3",
		"/accounts/cat/holds", "/accounts/dan/holds", "/accounts/cat/export", "/accounts/dan/export":
		return true
	}
	return false
}
