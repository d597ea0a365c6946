package workload

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// The requests of holds on titles (issue 39): a title and its copies, a member's hold on the
// title, a copy lent and returned, and the title's queue. Each wants the answer a first request
// gets (201, or 200 for a read) and says what came instead.

// AddTitle adds a title with one author, wanting 201.
func (c *Client) AddTitle(ctx context.Context, id, title, author string) error {
	body := fmt.Sprintf(`{"id":%q,"title":%q,"authors":[%q]}`, id, title, author)
	_, err := c.want(ctx, http.MethodPost, "/titles", "", body, http.StatusCreated)
	return err
}

// AddCopy adds a copy of a title, a book of its own, wanting 201.
func (c *Client) AddCopy(ctx context.Context, titleID, bookID, barcode string) error {
	path := "/titles/" + url.PathEscape(titleID) + "/copies"
	_, err := c.want(ctx, http.MethodPost, path, "", fmt.Sprintf(`{"id":%q,"barcode":%q}`, bookID, barcode), http.StatusCreated)
	return err
}

// OpenAccount makes a member with a name and no email, wanting 201.
func (c *Client) OpenAccount(ctx context.Context, member string) error {
	path := "/accounts/" + url.PathEscape(member)
	_, err := c.want(ctx, http.MethodPut, path, "", fmt.Sprintf(`{"name":"Reader %s"}`, member), http.StatusCreated)
	return err
}

// LendAs lends the book to the member under loanID, wanting 201.
func (c *Client) LendAs(ctx context.Context, book, loanID, member string) error {
	path := "/books/" + url.PathEscape(book) + "/loans"
	_, err := c.want(ctx, http.MethodPost, path, "", fmt.Sprintf(`{"loanId":%q,"memberId":%q}`, loanID, member), http.StatusCreated)
	return err
}

// ReturnBook ends the loan of the book, wanting 201, and returns the member the book was then
// held for (its BookHeld in the same answer), "" when it went back on the shelf.
func (c *Client) ReturnBook(ctx context.Context, book, loanID string) (string, error) {
	path := "/books/" + url.PathEscape(book) + "/returns"
	a, err := c.want(ctx, http.MethodPost, path, "", fmt.Sprintf(`{"loanId":%q}`, loanID), http.StatusCreated)
	if err != nil {
		return "", err
	}
	var result struct {
		Events []struct {
			Type string `json:"type"`
			Data struct {
				MemberID string `json:"memberId"`
			} `json:"data"`
		} `json:"events"`
	}
	if err := json.Unmarshal(a.Body, &result); err != nil {
		return "", fmt.Errorf("POST %s: %w", path, err)
	}
	for _, e := range result.Events {
		if e.Type == "BookHeld" {
			return e.Data.MemberID, nil
		}
	}
	return "", nil
}

// PlaceTitleHold puts the member in the title's queue with the Idempotency-Key key, wanting 201.
func (c *Client) PlaceTitleHold(ctx context.Context, titleID, member, key string) error {
	path := "/titles/" + url.PathEscape(titleID) + "/holds"
	_, err := c.want(ctx, http.MethodPost, path, key, fmt.Sprintf(`{"memberId":%q}`, member), http.StatusCreated)
	return err
}

// CancelTitleHold takes the member out of the title's queue, wanting 201.
func (c *Client) CancelTitleHold(ctx context.Context, titleID, member string) error {
	path := "/titles/" + url.PathEscape(titleID) + "/holds/" + url.PathEscape(member)
	_, err := c.want(ctx, http.MethodDelete, path, "", "", http.StatusCreated)
	return err
}

// TitleQueue is a title's queue as GET /titles/{titleId}/holds shows it.
type TitleQueue struct {
	Waiting []struct {
		MemberID string `json:"memberId"`
		Place    int    `json:"place"`
	} `json:"waiting"`
	Ready []struct {
		MemberID string    `json:"memberId"`
		BookID   string    `json:"bookId"`
		Until    time.Time `json:"until"`
	} `json:"ready"`
}

// Place is the member's place in the queue, from 1; 0 when they are not in it.
func (q TitleQueue) Place(member string) int {
	for _, w := range q.Waiting {
		if w.MemberID == member {
			return w.Place
		}
	}
	return 0
}

// Queue reads the title's queue, wanting 200.
func (c *Client) Queue(ctx context.Context, titleID string) (TitleQueue, error) {
	path := "/titles/" + url.PathEscape(titleID) + "/holds"
	a, err := c.want(ctx, http.MethodGet, path, "", "", http.StatusOK)
	if err != nil {
		return TitleQueue{}, err
	}
	var q TitleQueue
	if err := json.Unmarshal(a.Body, &q); err != nil {
		return q, fmt.Errorf("GET %s: %w", path, err)
	}
	return q, nil
}

// want sends the request, with key as its Idempotency-Key unless it is "", and wants status.
func (c *Client) want(ctx context.Context, method, path, key, body string, status int) (Answer, error) {
	a, err := c.send(ctx, method, path, key, body)
	if err != nil {
		return a, err
	}
	if a.Status != status {
		return a, fmt.Errorf("%s %s: %d %s", method, path, a.Status, bytes.TrimSpace(a.Body))
	}
	return a, nil
}
