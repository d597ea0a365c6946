package app_test

// Contract tests for the Books table of API.md (GET /books, the catalog list, is tested with
// the background work in background_test.go, and its pages and search in catalog_pages_test.go).
// Each test runs on both stores.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
)

func addBook(t *testing.T, a *api, id string) result {
	t.Helper()
	r := a.call(t, http.MethodPost, "/books", obj{"id": id, "title": "Dune", "author": "Frank Herbert"})
	return requireResult(t, r, http.StatusCreated, "book-"+id)
}

func lend(t *testing.T, a *api, bookID, loanID, memberID string) result {
	t.Helper()
	r := a.call(t, http.MethodPost, "/books/"+bookID+"/loans", obj{"loanId": loanID, "memberId": memberID})
	return requireResult(t, r, http.StatusCreated, "book-"+bookID)
}

// requireReplay checks that again is the first answer repeated: same status, the same body
// byte for byte, and Idempotent-Replayed: true, which the first answer did not have.
func requireReplay(t *testing.T, first, again response) {
	t.Helper()
	assert.Empty(t, first.Header.Get("Idempotent-Replayed"), "the first answer is not a replay")
	require.Equal(t, first.Status, again.Status)
	require.Equal(t, string(first.Body), string(again.Body), "a replay is the first body, byte for byte")
	require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
}

// POST /books: 201 BookAdded with the contract's result shape; 409 BookAlreadyExists when the
// id is taken; an Idempotency-Key makes a repeat a replay instead of a 409; every body rule.
func TestAddBook(t *testing.T) {
	t.Parallel()
	forEachStore(t, app.Config{}, func(t *testing.T, a *api) {
		t.Run("201 BookAdded", func(t *testing.T) {
			r := a.call(t, http.MethodPost, "/books", obj{"id": "dune", "title": "Dune", "author": "Frank Herbert"})
			res := requireResult(t, r, http.StatusCreated, "book-dune")
			assert.EqualValues(t, 1, res.Version)
			requireEvent(t, res, "BookAdded", `{"id":"dune","title":"Dune","author":"Frank Herbert"}`)
		})
		t.Run("409 BookAlreadyExists", func(t *testing.T) {
			r := a.call(t, http.MethodPost, "/books", obj{"id": "dune", "title": "Dune Messiah", "author": "Frank Herbert"})
			requireProblem(t, r, http.StatusConflict, "BookAlreadyExists")
		})
		t.Run("a repeat with its Idempotency-Key is replayed, not refused", func(t *testing.T) {
			body := obj{"id": "neuromancer", "title": "Neuromancer", "author": "William Gibson"}
			first := a.call(t, http.MethodPost, "/books", body, "Idempotency-Key", "add-neuromancer")
			requireResult(t, first, http.StatusCreated, "book-neuromancer")
			requireReplay(t, first, a.call(t, http.MethodPost, "/books", body, "Idempotency-Key", "add-neuromancer"))
			requireProblem(t, a.call(t, http.MethodPost, "/books", body), http.StatusConflict, "BookAlreadyExists")
		})
		t.Run("400 for fields that break the rules", func(t *testing.T) {
			for name, body := range map[string]string{
				"id missing":          `{"title":"T","author":"A"}`,
				"title missing":       `{"id":"b1","author":"A"}`,
				"author missing":      `{"id":"b1","title":"T"}`,
				"id not a string":     `{"id":5,"title":"T","author":"A"}`,
				"id null":             `{"id":null,"title":"T","author":"A"}`,
				"id with a space":     `{"id":"b 1","title":"T","author":"A"}`,
				"id starting with -":  `{"id":"-b","title":"T","author":"A"}`,
				"id of 129 chars":     `{"id":"` + strings.Repeat("b", 129) + `","title":"T","author":"A"}`,
				"title blank":         `{"id":"b1","title":"   ","author":"A"}`,
				"title with newline":  `{"id":"b1","title":"T\nX","author":"A"}`,
				"title with NUL":      `{"id":"b1","title":"T\u0000","author":"A"}`,
				"title of 301 chars":  `{"id":"b1","title":"` + strings.Repeat("t", 301) + `","author":"A"}`,
				"author of 301 chars": `{"id":"b1","title":"T","author":"` + strings.Repeat("a", 301) + `"}`,
			} {
				t.Run(name, func(t *testing.T) {
					r := a.send(t, http.MethodPost, "/books", []byte(body))
					requireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
				})
			}
			requireProblem(t, a.get(t, "/books/b1"), http.StatusNotFound, "NotFound")
		})
		t.Run("limits are inclusive: 128-char id, 300-char title", func(t *testing.T) {
			id := strings.Repeat("b", 128)
			r := a.call(t, http.MethodPost, "/books", obj{"id": id, "title": strings.Repeat("é", 300), "author": "A"})
			requireResult(t, r, http.StatusCreated, "book-"+id)
		})
		t.Run("application/*+json and an explicit UTF-8 charset are JSON", func(t *testing.T) {
			for i, contentType := range []string{"application/json; charset=UTF-8", "application/vnd.library+json"} {
				body := fmt.Sprintf(`{"id":"typed-%d","title":"T","author":"A"}`, i)
				r := a.send(t, http.MethodPost, "/books", []byte(body), "Content-Type", contentType)
				requireResult(t, r, http.StatusCreated, fmt.Sprintf("book-typed-%d", i))
			}
		})
		t.Run("field names are matched exactly", func(t *testing.T) {
			// encoding/json alone would take "ID", "Title" and "AUTHOR" for id, title and author.
			r := a.send(t, http.MethodPost, "/books", []byte(`{"ID":"b2","Title":"T","AUTHOR":"A"}`))
			requireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
			r = a.send(t, http.MethodPost, "/books", []byte(`{"id":"b2","title":"T","author":"A","title":"U"}`))
			requireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
		})
		requireBodyErrors(t, a, http.MethodPost, "/books", `{"id":"b3","title":"T","author":"A"}`)
	})
}

// GET /books/{bookId}: 404 NotFound for a book never added; 200 with exactly the contract's
// members, the loan null on the shelf and filled in while lent; 400 for a bad id.
func TestGetBook(t *testing.T) {
	t.Parallel()
	forEachStore(t, app.Config{LoanPeriod: 7 * 24 * time.Hour}, func(t *testing.T, a *api) {
		type loan struct {
			LoanID   string `json:"loanId"`
			MemberID string `json:"memberId"`
			LentAt   string `json:"lentAt"`
			DueAt    string `json:"dueAt"`
		}
		type book struct {
			ID      string `json:"id"`
			Title   string `json:"title"`
			Author  string `json:"author"`
			Status  string `json:"status"`
			Loan    *loan  `json:"loan"`
			Version int64  `json:"version"`
		}
		getBook := func(t *testing.T, id string) book {
			r := a.get(t, "/books/"+id)
			requireKeys(t, r.Body, "id", "title", "author", "status", "loan", "version")
			var b book
			requireJSON(t, r, &b)
			return b
		}

		t.Run("404 NotFound", func(t *testing.T) {
			requireProblem(t, a.get(t, "/books/dune"), http.StatusNotFound, "NotFound")
			requireProblem(t, a.get(t, "/books/"+strings.Repeat("x", 128)), http.StatusNotFound, "NotFound")
		})
		addBook(t, a, "dune")
		t.Run("200 available, loan null", func(t *testing.T) {
			r := a.get(t, "/books/dune")
			assert.Contains(t, string(r.Body), `"loan":null`)
			assert.Equal(t, book{ID: "dune", Title: "Dune", Author: "Frank Herbert", Status: "available", Version: 1}, getBook(t, "dune"))
		})
		t.Run("200 lent, with the loan", func(t *testing.T) {
			lend(t, a, "dune", "loan-1", "alice")
			r := a.get(t, "/books/dune")
			var raw map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(r.Body, &raw))
			requireKeys(t, raw["loan"], "loanId", "memberId", "lentAt", "dueAt")
			assert.Equal(t, book{
				ID: "dune", Title: "Dune", Author: "Frank Herbert", Status: "lent", Version: 2,
				Loan: &loan{LoanID: "loan-1", MemberID: "alice", LentAt: "2026-12-01T09:00:00Z", DueAt: "2026-12-08T09:00:00Z"},
			}, getBook(t, "dune"))
		})
		t.Run("200 available again after the return", func(t *testing.T) {
			r := a.call(t, http.MethodPost, "/books/dune/returns", obj{"loanId": "loan-1"})
			requireResult(t, r, http.StatusCreated, "book-dune")
			b := getBook(t, "dune")
			assert.Equal(t, "available", b.Status)
			assert.Nil(t, b.Loan)
			assert.EqualValues(t, 3, b.Version)
		})
		requireBadPathIDs(t, a, http.MethodGet, "/books/%s", nil)
	})
}

// POST /books/{bookId}/loans: 201 BookLent (dueAt defaults to now + LOAN_PERIOD, or is the
// given RFC 3339 time in UTC); 200 with no events for a repeat of the same loan, even after
// the return; 404 for an unknown book; 409 BookAlreadyLent for another loan, or for the same
// loan id with another member; 400 for a bad dueAt, ids or body.
func TestLendBook(t *testing.T) {
	t.Parallel()
	forEachStore(t, app.Config{LoanPeriod: 7 * 24 * time.Hour}, func(t *testing.T, a *api) {
		lendBody := obj{"loanId": "loan-1", "memberId": "alice"}
		t.Run("404 NotFound", func(t *testing.T) {
			r := a.call(t, http.MethodPost, "/books/dune/loans", lendBody)
			requireProblem(t, r, http.StatusNotFound, "NotFound")
		})
		added := addBook(t, a, "dune")
		var lent result
		t.Run("201 BookLent, dueAt defaulted", func(t *testing.T) {
			r := a.call(t, http.MethodPost, "/books/dune/loans", lendBody)
			lent = requireResult(t, r, http.StatusCreated, "book-dune")
			assert.EqualValues(t, 2, lent.Version)
			assert.Greater(t, lent.Position, added.Position)
			requireEvent(t, lent, "BookLent",
				`{"loanId":"loan-1","memberId":"alice","lentAt":"2026-12-01T09:00:00Z","dueAt":"2026-12-08T09:00:00Z"}`)
		})
		t.Run("200 and no events for the same loan again", func(t *testing.T) {
			r := a.call(t, http.MethodPost, "/books/dune/loans", lendBody)
			res := requireResult(t, r, http.StatusOK, "book-dune")
			assert.Equal(t, lent.Version, res.Version)
			assert.Equal(t, lent.Position, res.Position, "position of the stream's last event")
			assert.Contains(t, string(r.Body), `"events":[]`)
		})
		t.Run("409 BookAlreadyLent for the same loan id and another member", func(t *testing.T) {
			r := a.call(t, http.MethodPost, "/books/dune/loans", obj{"loanId": "loan-1", "memberId": "bob"})
			requireProblem(t, r, http.StatusConflict, "BookAlreadyLent")
		})
		t.Run("409 BookAlreadyLent for another loan", func(t *testing.T) {
			r := a.call(t, http.MethodPost, "/books/dune/loans", obj{"loanId": "loan-2", "memberId": "bob"})
			requireProblem(t, r, http.StatusConflict, "BookAlreadyLent")
		})
		t.Run("200 for the same loan after its return: a repeat is harmless however late", func(t *testing.T) {
			requireResult(t, a.call(t, http.MethodPost, "/books/dune/returns", obj{"loanId": "loan-1"}), http.StatusCreated, "book-dune")
			res := requireResult(t, a.call(t, http.MethodPost, "/books/dune/loans", lendBody), http.StatusOK, "book-dune")
			assert.EqualValues(t, 3, res.Version)
		})
		t.Run("201 with an explicit dueAt, stored in UTC", func(t *testing.T) {
			addBook(t, a, "neuromancer")
			r := a.call(t, http.MethodPost, "/books/neuromancer/loans",
				obj{"loanId": "loan-3", "memberId": "alice", "dueAt": "2026-12-24T18:00:00+01:00"})
			res := requireResult(t, r, http.StatusCreated, "book-neuromancer")
			requireEvent(t, res, "BookLent",
				`{"loanId":"loan-3","memberId":"alice","lentAt":"2026-12-01T09:00:00Z","dueAt":"2026-12-24T17:00:00Z"}`)
		})
		t.Run("a repeat with its Idempotency-Key is replayed", func(t *testing.T) {
			addBook(t, a, "snow-crash")
			body := obj{"loanId": "loan-4", "memberId": "carol", "dueAt": "2026-12-24T17:00:00.5Z"}
			first := a.call(t, http.MethodPost, "/books/snow-crash/loans", body, "Idempotency-Key", "lend-4")
			requireResult(t, first, http.StatusCreated, "book-snow-crash")
			requireReplay(t, first, a.call(t, http.MethodPost, "/books/snow-crash/loans", body, "Idempotency-Key", "lend-4"))
		})
		t.Run("400 for fields that break the rules", func(t *testing.T) {
			addBook(t, a, "free")
			for name, body := range map[string]string{
				"loanId missing":         `{"memberId":"alice"}`,
				"memberId missing":       `{"loanId":"l9"}`,
				"loanId invalid":         `{"loanId":"-l9","memberId":"alice"}`,
				"memberId invalid":       `{"loanId":"l9","memberId":"al ice"}`,
				"memberId not a string":  `{"loanId":"l9","memberId":7}`,
				"dueAt empty":            `{"loanId":"l9","memberId":"alice","dueAt":""}`,
				"dueAt a date":           `{"loanId":"l9","memberId":"alice","dueAt":"2026-12-24"}`,
				"dueAt without zone":     `{"loanId":"l9","memberId":"alice","dueAt":"2026-12-24T17:00:00"}`,
				"dueAt in words":         `{"loanId":"l9","memberId":"alice","dueAt":"tomorrow"}`,
				"dueAt day first":        `{"loanId":"l9","memberId":"alice","dueAt":"24/12/2026 17:00"}`,
				"dueAt a number":         `{"loanId":"l9","memberId":"alice","dueAt":1798131600}`,
				"dueAt with bad month":   `{"loanId":"l9","memberId":"alice","dueAt":"2026-13-24T17:00:00Z"}`,
				"dueAt with space for T": `{"loanId":"l9","memberId":"alice","dueAt":"2026-12-24 17:00:00Z"}`,
			} {
				t.Run(name, func(t *testing.T) {
					r := a.send(t, http.MethodPost, "/books/free/loans", []byte(body))
					requireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
				})
			}
			requireResult(t, a.call(t, http.MethodPost, "/books/free/loans", obj{"loanId": "l9", "memberId": "alice", "dueAt": nil}),
				http.StatusCreated, "book-free")
		})
		requireBadPathIDs(t, a, http.MethodPost, "/books/%s/loans", lendBody)
		requireBodyErrors(t, a, http.MethodPost, "/books/dune/loans", `{"loanId":"loan-1","memberId":"alice"}`)
	})
}

// POST /books/{bookId}/returns: 201 BookReturned with daysLate (0 on time, whole days after
// dueAt, by the service's clock); 200 with no events when already returned; 404 for an
// unknown book; 409 LoanMismatch when the book is not lent under that loan; 400 for bad input.
func TestReturnBook(t *testing.T) {
	t.Parallel()
	forEachStore(t, app.Config{LoanPeriod: 14 * 24 * time.Hour}, func(t *testing.T, a *api) {
		returns := func(t *testing.T, book, loanID string) response {
			t.Helper()
			return a.call(t, http.MethodPost, "/books/"+book+"/returns", obj{"loanId": loanID})
		}
		t.Run("404 NotFound", func(t *testing.T) {
			requireProblem(t, returns(t, "dune", "loan-1"), http.StatusNotFound, "NotFound")
		})
		addBook(t, a, "dune")
		t.Run("409 LoanMismatch when the book is on the shelf", func(t *testing.T) {
			requireProblem(t, returns(t, "dune", "loan-1"), http.StatusConflict, "LoanMismatch")
		})
		lend(t, a, "dune", "loan-1", "alice")
		t.Run("409 LoanMismatch for another loan", func(t *testing.T) {
			requireProblem(t, returns(t, "dune", "loan-2"), http.StatusConflict, "LoanMismatch")
		})
		var returned result
		t.Run("201 BookReturned on time: daysLate 0", func(t *testing.T) {
			a.clock.Advance(14*24*time.Hour - time.Second) // one second before it is due
			returned = requireResult(t, returns(t, "dune", "loan-1"), http.StatusCreated, "book-dune")
			assert.EqualValues(t, 3, returned.Version)
			requireEvent(t, returned, "BookReturned",
				`{"loanId":"loan-1","memberId":"alice","returnedAt":"2026-12-15T08:59:59Z","daysLate":0}`)
		})
		t.Run("200 and no events when already returned", func(t *testing.T) {
			res := requireResult(t, returns(t, "dune", "loan-1"), http.StatusOK, "book-dune")
			assert.Equal(t, returned.Version, res.Version)
			assert.Equal(t, returned.Position, res.Position)
		})
		t.Run("daysLate counts whole days after an explicit dueAt", func(t *testing.T) {
			addBook(t, a, "neuromancer")
			due := a.clock.Now().Add(time.Hour)
			r := a.call(t, http.MethodPost, "/books/neuromancer/loans", obj{"loanId": "loan-3", "memberId": "bob", "dueAt": due.Format(time.RFC3339)})
			requireResult(t, r, http.StatusCreated, "book-neuromancer")
			a.clock.Advance(time.Hour + 2*24*time.Hour + 23*time.Hour) // 2 days 23 hours late
			res := requireResult(t, returns(t, "neuromancer", "loan-3"), http.StatusCreated, "book-neuromancer")
			requireEvent(t, res, "BookReturned", fmt.Sprintf(
				`{"loanId":"loan-3","memberId":"bob","returnedAt":%q,"daysLate":2}`, a.clock.Now().Format(time.RFC3339)))
		})
		t.Run("400 for a dueAt not after the lending time, or more than a year after it", func(t *testing.T) {
			addBook(t, a, "emma")
			now := a.clock.Now()
			for _, due := range []time.Time{now.Add(-time.Hour), now, now.Add(367 * 24 * time.Hour), {}} {
				r := a.call(t, http.MethodPost, "/books/emma/loans", obj{"loanId": "loan-5", "memberId": "bob", "dueAt": due.Format(time.RFC3339)})
				requireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
			}
		})
		t.Run("daysLate follows the clock past the default loan period", func(t *testing.T) {
			addBook(t, a, "snow-crash")
			lend(t, a, "snow-crash", "loan-4", "carol")
			a.clock.Advance(14*24*time.Hour + 3*24*time.Hour + time.Hour)
			res := requireResult(t, returns(t, "snow-crash", "loan-4"), http.StatusCreated, "book-snow-crash")
			require.Len(t, res.Events, 1)
			assert.Contains(t, string(res.Events[0].Data), `"daysLate":3`)
		})
		t.Run("400 for a missing or invalid loanId", func(t *testing.T) {
			for _, body := range []string{`{}`, `{"loanId":""}`, `{"loanId":"-x"}`, `{"loanId":5}`, `{"loanId":null}`} {
				r := a.send(t, http.MethodPost, "/books/dune/returns", []byte(body))
				requireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
			}
		})
		requireBadPathIDs(t, a, http.MethodPost, "/books/%s/returns", obj{"loanId": "loan-1"})
		requireBodyErrors(t, a, http.MethodPost, "/books/dune/returns", `{"loanId":"loan-1"}`)
	})
}
