package booksapi_test

// Contract tests for the books endpoints of docs/api.md (GET /books, the catalog list, is tested
// with the background work in internal/app's background_test.go, and its pages and search in
// internal/catalog's pages_http_test.go).
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
	"library/internal/books"
	"library/internal/testkit/apitest"
)

// POST /books: 201 BookAdded with the contract's result shape; 409 BookAlreadyExists when the
// id is taken; an Idempotency-Key makes a repeat a replay instead of a 409; every body rule.
func TestHTTPAddBook(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		t.Run("201 BookAdded", func(t *testing.T) {
			r := a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": "dune", "title": "Dune", "author": "Frank Herbert"})
			res := apitest.RequireResult(t, r, http.StatusCreated, "book-dune")
			assert.EqualValues(t, 1, res.Version)
			// Today's answer, and the title the book is now a copy of (books.TitleIDOf).
			apitest.RequireEvent(t, res, "BookAdded", `{"id":"dune","title":"Dune","author":"Frank Herbert","titleId":"`+books.TitleIDOf("Dune", "Frank Herbert")+`"}`)
		})
		t.Run("409 BookAlreadyExists", func(t *testing.T) {
			r := a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": "dune", "title": "Dune Messiah", "author": "Frank Herbert"})
			apitest.RequireProblem(t, r, http.StatusConflict, "BookAlreadyExists")
		})
		t.Run("a repeat with its Idempotency-Key is replayed, not refused", func(t *testing.T) {
			body := apitest.Obj{"id": "neuromancer", "title": "Neuromancer", "author": "William Gibson"}
			first := a.Call(t, http.MethodPost, "/books", body, "Idempotency-Key", "add-neuromancer")
			apitest.RequireResult(t, first, http.StatusCreated, "book-neuromancer")
			apitest.RequireReplay(t, first, a.Call(t, http.MethodPost, "/books", body, "Idempotency-Key", "add-neuromancer"))
			apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/books", body), http.StatusConflict, "BookAlreadyExists")
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
					r := a.Send(t, http.MethodPost, "/books", []byte(body))
					apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
				})
			}
			apitest.RequireProblem(t, a.Get(t, "/books/b1"), http.StatusNotFound, "NotFound")
		})
		t.Run("limits are inclusive: 128-char id, 300-char title", func(t *testing.T) {
			id := strings.Repeat("b", 128)
			r := a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": id, "title": strings.Repeat("é", 300), "author": "A"})
			apitest.RequireResult(t, r, http.StatusCreated, "book-"+id)
		})
		t.Run("application/*+json and an explicit UTF-8 charset are JSON", func(t *testing.T) {
			for i, contentType := range []string{"application/json; charset=UTF-8", "application/vnd.library+json"} {
				body := fmt.Sprintf(`{"id":"typed-%d","title":"T","author":"A"}`, i)
				r := a.Send(t, http.MethodPost, "/books", []byte(body), "Content-Type", contentType)
				apitest.RequireResult(t, r, http.StatusCreated, fmt.Sprintf("book-typed-%d", i))
			}
		})
		t.Run("field names are matched exactly", func(t *testing.T) {
			// encoding/json alone would take "ID", "Title" and "AUTHOR" for id, title and author.
			r := a.Send(t, http.MethodPost, "/books", []byte(`{"ID":"b2","Title":"T","AUTHOR":"A"}`))
			apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
			r = a.Send(t, http.MethodPost, "/books", []byte(`{"id":"b2","title":"T","author":"A","title":"U"}`))
			apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
		})
		apitest.RequireBodyErrors(t, a, http.MethodPost, "/books", `{"id":"b3","title":"T","author":"A"}`)
	})
}

// GET /books/{bookId}: 404 NotFound for a book never added; 200 with exactly the contract's
// members, the loan null on the shelf and filled in while lent; 400 for a bad id.
func TestHTTPGetBook(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{LoanPeriod: 7 * 24 * time.Hour}, func(t *testing.T, a *apitest.API) {
		type loan struct {
			LoanID   string `json:"loanId"`
			MemberID string `json:"memberId"`
			LentAt   string `json:"lentAt"`
			DueAt    string `json:"dueAt"`
		}
		type book struct {
			ID      string `json:"id"`
			TitleID string `json:"titleId"`
			Title   string `json:"title"`
			Author  string `json:"author"`
			Status  string `json:"status"`
			Loan    *loan  `json:"loan"`
			Version int64  `json:"version"`
		}
		getBook := func(t *testing.T, id string) book {
			r := a.Get(t, "/books/"+id)
			apitest.RequireKeys(t, r.Body, "id", "titleId", "title", "author", "status", "loan", "version")
			var b book
			apitest.RequireJSON(t, r, &b)
			return b
		}

		t.Run("404 NotFound", func(t *testing.T) {
			apitest.RequireProblem(t, a.Get(t, "/books/dune"), http.StatusNotFound, "NotFound")
			apitest.RequireProblem(t, a.Get(t, "/books/"+strings.Repeat("x", 128)), http.StatusNotFound, "NotFound")
		})
		apitest.AddBook(t, a, "dune")
		t.Run("200 available, loan null", func(t *testing.T) {
			r := a.Get(t, "/books/dune")
			assert.Contains(t, string(r.Body), `"loan":null`)
			assert.Equal(t, book{ID: "dune", TitleID: strings.TrimPrefix(apitest.TitleStreamOf("dune"), "title-"), Title: "Dune", Author: "Frank Herbert", Status: "available", Version: 1}, getBook(t, "dune"))
		})
		t.Run("200 lent, with the loan", func(t *testing.T) {
			apitest.Lend(t, a, "dune", "loan-1", "alice")
			r := a.Get(t, "/books/dune")
			var raw map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(r.Body, &raw))
			apitest.RequireKeys(t, raw["loan"], "loanId", "memberId", "lentAt", "dueAt")
			assert.Equal(t, book{
				ID: "dune", TitleID: strings.TrimPrefix(apitest.TitleStreamOf("dune"), "title-"), Title: "Dune", Author: "Frank Herbert", Status: "lent", Version: 2,
				Loan: &loan{LoanID: "loan-1", MemberID: "alice", LentAt: "2026-12-01T09:00:00Z", DueAt: "2026-12-08T09:00:00Z"},
			}, getBook(t, "dune"))
		})
		t.Run("200 available again after the return", func(t *testing.T) {
			r := a.Call(t, http.MethodPost, "/books/dune/returns", apitest.Obj{"loanId": "loan-1"})
			apitest.RequireResult(t, r, http.StatusCreated, "book-dune")
			b := getBook(t, "dune")
			assert.Equal(t, "available", b.Status)
			assert.Nil(t, b.Loan)
			assert.EqualValues(t, 3, b.Version)
		})
		apitest.RequireBadPathIDs(t, a, http.MethodGet, "/books/%s", nil)
	})
}

// POST /books/{bookId}/loans: 201 BookLent (dueAt defaults to now + LOAN_PERIOD, or is the
// given RFC 3339 time in UTC); 200 with no events for a repeat of the same loan, even after
// the return; 404 for an unknown book; 409 BookAlreadyLent for another loan, or for the same
// loan id with another member; 400 for a bad dueAt, ids or body.
func TestHTTPLendBook(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{LoanPeriod: 7 * 24 * time.Hour}, func(t *testing.T, a *apitest.API) {
		lendBody := apitest.Obj{"loanId": "loan-1", "memberId": "alice"}
		t.Run("404 NotFound", func(t *testing.T) {
			r := a.Call(t, http.MethodPost, "/books/dune/loans", lendBody)
			apitest.RequireProblem(t, r, http.StatusNotFound, "NotFound")
		})
		added := apitest.AddBook(t, a, "dune")
		var lent apitest.Result
		t.Run("201 BookLent, dueAt defaulted", func(t *testing.T) {
			r := a.Call(t, http.MethodPost, "/books/dune/loans", lendBody)
			lent = apitest.RequireResult(t, r, http.StatusCreated, "book-dune")
			assert.EqualValues(t, 2, lent.Version)
			assert.Greater(t, lent.Position, added.Position)
			apitest.RequireEvent(t, lent, "BookLent",
				`{"loanId":"loan-1","memberId":"alice","lentAt":"2026-12-01T09:00:00Z","dueAt":"2026-12-08T09:00:00Z",`+
					`"terms":`+defaultTerms+`}`)
		})
		t.Run("200 and no events for the same loan again", func(t *testing.T) {
			r := a.Call(t, http.MethodPost, "/books/dune/loans", lendBody)
			res := apitest.RequireResult(t, r, http.StatusOK, "book-dune")
			assert.Equal(t, lent.Version, res.Version)
			assert.Equal(t, lent.Position, res.Position, "position of the stream's last event")
			assert.Contains(t, string(r.Body), `"events":[]`)
		})
		t.Run("409 BookAlreadyLent for the same loan id and another member", func(t *testing.T) {
			r := a.Call(t, http.MethodPost, "/books/dune/loans", apitest.Obj{"loanId": "loan-1", "memberId": "bob"})
			apitest.RequireProblem(t, r, http.StatusConflict, "BookAlreadyLent")
		})
		t.Run("409 BookAlreadyLent for another loan", func(t *testing.T) {
			r := a.Call(t, http.MethodPost, "/books/dune/loans", apitest.Obj{"loanId": "loan-2", "memberId": "bob"})
			apitest.RequireProblem(t, r, http.StatusConflict, "BookAlreadyLent")
		})
		t.Run("200 for the same loan after its return: a repeat is harmless however late", func(t *testing.T) {
			apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune/returns", apitest.Obj{"loanId": "loan-1"}), http.StatusCreated, "book-dune")
			res := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune/loans", lendBody), http.StatusOK, "book-dune")
			assert.EqualValues(t, 3, res.Version)
		})
		t.Run("201 with an explicit dueAt, stored in UTC", func(t *testing.T) {
			apitest.AddBook(t, a, "neuromancer")
			r := a.Call(t, http.MethodPost, "/books/neuromancer/loans",
				apitest.Obj{"loanId": "loan-3", "memberId": "alice", "dueAt": "2026-12-24T18:00:00+01:00"})
			res := apitest.RequireResult(t, r, http.StatusCreated, "book-neuromancer")
			apitest.RequireEvent(t, res, "BookLent",
				`{"loanId":"loan-3","memberId":"alice","lentAt":"2026-12-01T09:00:00Z","dueAt":"2026-12-24T17:00:00Z","terms":`+defaultTerms+`}`)
		})
		t.Run("a repeat with its Idempotency-Key is replayed", func(t *testing.T) {
			apitest.AddBook(t, a, "snow-crash")
			body := apitest.Obj{"loanId": "loan-4", "memberId": "carol", "dueAt": "2026-12-24T17:00:00.5Z"}
			first := a.Call(t, http.MethodPost, "/books/snow-crash/loans", body, "Idempotency-Key", "lend-4")
			apitest.RequireResult(t, first, http.StatusCreated, "book-snow-crash")
			apitest.RequireReplay(t, first, a.Call(t, http.MethodPost, "/books/snow-crash/loans", body, "Idempotency-Key", "lend-4"))
		})
		t.Run("400 for fields that break the rules", func(t *testing.T) {
			apitest.AddBook(t, a, "free")
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
					r := a.Send(t, http.MethodPost, "/books/free/loans", []byte(body))
					apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
				})
			}
			apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/free/loans", apitest.Obj{"loanId": "l9", "memberId": "alice", "dueAt": nil}),
				http.StatusCreated, "book-free")
		})
		apitest.RequireBadPathIDs(t, a, http.MethodPost, "/books/%s/loans", lendBody)
		apitest.RequireBodyErrors(t, a, http.MethodPost, "/books/dune/loans", `{"loanId":"loan-1","memberId":"alice"}`)
	})
}

// POST /books/{bookId}/returns: 201 BookReturned with daysLate (0 on time, whole days after
// dueAt, by the service's clock); 200 with no events when already returned; 404 for an
// unknown book; 409 LoanMismatch when the book is not lent under that loan; 400 for bad input.
func TestHTTPReturnBook(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{LoanPeriod: 14 * 24 * time.Hour}, func(t *testing.T, a *apitest.API) {
		returns := func(t *testing.T, book, loanID string) apitest.Response {
			t.Helper()
			return a.Call(t, http.MethodPost, "/books/"+book+"/returns", apitest.Obj{"loanId": loanID})
		}
		t.Run("404 NotFound", func(t *testing.T) {
			apitest.RequireProblem(t, returns(t, "dune", "loan-1"), http.StatusNotFound, "NotFound")
		})
		apitest.AddBook(t, a, "dune")
		t.Run("409 LoanMismatch when the book is on the shelf", func(t *testing.T) {
			apitest.RequireProblem(t, returns(t, "dune", "loan-1"), http.StatusConflict, "LoanMismatch")
		})
		apitest.Lend(t, a, "dune", "loan-1", "alice")
		t.Run("409 LoanMismatch for another loan", func(t *testing.T) {
			apitest.RequireProblem(t, returns(t, "dune", "loan-2"), http.StatusConflict, "LoanMismatch")
		})
		var returned apitest.Result
		t.Run("201 BookReturned on time: daysLate 0", func(t *testing.T) {
			a.Clock.Advance(14*24*time.Hour - time.Second) // one second before it is due
			returned = apitest.RequireResult(t, returns(t, "dune", "loan-1"), http.StatusCreated, "book-dune")
			assert.EqualValues(t, 3, returned.Version)
			apitest.RequireEvent(t, returned, "BookReturned",
				`{"loanId":"loan-1","memberId":"alice","returnedAt":"2026-12-15T08:59:59Z","daysLate":0,"fine":0}`)
		})
		t.Run("200 and no events when already returned", func(t *testing.T) {
			res := apitest.RequireResult(t, returns(t, "dune", "loan-1"), http.StatusOK, "book-dune")
			assert.Equal(t, returned.Version, res.Version)
			assert.Equal(t, returned.Position, res.Position)
		})
		t.Run("409 LoanMismatch for an old loan once the book is lent again", func(t *testing.T) {
			apitest.AddBook(t, a, "kindred")
			apitest.Lend(t, a, "kindred", "loan-k1", "alice")
			apitest.RequireResult(t, returns(t, "kindred", "loan-k1"), http.StatusCreated, "book-kindred")
			apitest.Lend(t, a, "kindred", "loan-k2", "bob")
			apitest.RequireProblem(t, returns(t, "kindred", "loan-other"), http.StatusConflict, "LoanMismatch")
			var book map[string]any
			apitest.RequireJSON(t, a.Get(t, "/books/kindred"), &book)
			assert.Equal(t, "lent", book["status"], "still lent")
			assert.Equal(t, "loan-k2", book["loan"].(map[string]any)["loanId"], "under its own loan")
		})
		t.Run("daysLate counts whole days after an explicit dueAt, lateDays the open days", func(t *testing.T) {
			apitest.AddBook(t, a, "neuromancer")
			due := a.Clock.Now().Add(time.Hour)
			r := a.Call(t, http.MethodPost, "/books/neuromancer/loans", apitest.Obj{"loanId": "loan-3", "memberId": "bob", "dueAt": due.Format(time.RFC3339)})
			apitest.RequireResult(t, r, http.StatusCreated, "book-neuromancer")
			a.Clock.Advance(time.Hour + 2*24*time.Hour + 23*time.Hour) // 2 days 23 hours late
			res := apitest.RequireResult(t, returns(t, "neuromancer", "loan-3"), http.StatusCreated, "book-neuromancer")
			apitest.RequireEvent(t, res, "BookReturned", fmt.Sprintf(
				`{"loanId":"loan-3","memberId":"bob","returnedAt":%q,"daysLate":2,"lateDays":3,"fine":75}`, a.Clock.Now().Format(time.RFC3339)))
		})
		t.Run("400 for a dueAt not after the lending time, or more than a year after it", func(t *testing.T) {
			apitest.AddBook(t, a, "emma")
			now := a.Clock.Now()
			for _, due := range []time.Time{now.Add(-time.Hour), now, now.Add(367 * 24 * time.Hour), {}} {
				r := a.Call(t, http.MethodPost, "/books/emma/loans", apitest.Obj{"loanId": "loan-5", "memberId": "bob", "dueAt": due.Format(time.RFC3339)})
				apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
			}
		})
		t.Run("daysLate follows the clock past the default loan period", func(t *testing.T) {
			apitest.AddBook(t, a, "snow-crash")
			apitest.Lend(t, a, "snow-crash", "loan-4", "carol")
			a.Clock.Advance(14*24*time.Hour + 3*24*time.Hour + time.Hour)
			res := apitest.RequireResult(t, returns(t, "snow-crash", "loan-4"), http.StatusCreated, "book-snow-crash")
			require.Len(t, res.Events, 1)
			assert.Contains(t, string(res.Events[0].Data), `"daysLate":3`)
		})
		t.Run("400 for a missing or invalid loanId", func(t *testing.T) {
			for _, body := range []string{`{}`, `{"loanId":""}`, `{"loanId":"-x"}`, `{"loanId":5}`, `{"loanId":null}`} {
				r := a.Send(t, http.MethodPost, "/books/dune/returns", []byte(body))
				apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
			}
		})
		apitest.RequireBadPathIDs(t, a, http.MethodPost, "/books/%s/returns", apitest.Obj{"loanId": "loan-1"})
		apitest.RequireBodyErrors(t, a, http.MethodPost, "/books/dune/returns", `{"loanId":"loan-1"}`)
	})
}

// defaultTerms are the terms of a loan made on the environment's defaults: no table set.
const defaultTerms = `{"group":"adult","materialType":"book","finePerDay":25,"fineCap":"replacementPrice","renewalsAllowed":2,"lostAfter":60,"rulesVersion":0}`
