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

// holdsOnTheCopy is where the upgrade's promise about the holds the release before placed on
// one copy is checked: cat's, then dan's, on dune-1 (ben's was cancelled). Holds are becoming
// holds on titles, and that part of the upgrade is being built apart: once it lands, they are
// to be the holds of dune-1's title, in the same order, and this is the check to change. Until
// then it checks what this build promises today: the copy's queue, in its order.
func holdsOnTheCopy(c client) {
	c.t.Helper()
	a := c.do([]int{http.StatusOK}, http.MethodGet, "/holds?status=waiting", "")
	var list struct {
		Holds []struct {
			BookID   string `json:"bookId"`
			MemberID string `json:"memberId"`
			Place    int    `json:"place"`
		} `json:"holds"`
	}
	if err := json.Unmarshal([]byte(a.Body), &list); err != nil {
		c.t.Fatalf("GET /holds?status=waiting: %v: %s", err, a.Body)
	}
	var queue []string
	for _, h := range list.Holds {
		if h.BookID == "dune-1" {
			queue = append(queue, fmt.Sprintf("%s:%d", h.MemberID, h.Place))
		}
	}
	if want := []string{"cat:1", "dan:2"}; !slices.Equal(queue, want) {
		c.t.Fatalf("the holds on dune-1 became %v, want %v: %s", queue, want, a.Body)
	}
}
