package workload

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Request sends a JSON body with method to path and returns the answer.
func (c *Client) Request(ctx context.Context, method, path, body string) (Answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, strings.NewReader(body))
	if err != nil {
		return Answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	c.authorize(req)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return Answer{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		return Answer{}, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	return Answer{Status: resp.StatusCode, Body: b.Bytes()}, nil
}

// OpenMember gives the member an email address.
func (c *Client) OpenMember(ctx context.Context, member string) error {
	path := "/accounts/" + url.PathEscape(member)
	a, err := c.Request(ctx, http.MethodPut, path, `{"name":"Bench Reader","email":"reader@example.org"}`)
	if err != nil {
		return err
	}
	if a.Status != http.StatusCreated && a.Status != http.StatusOK {
		return fmt.Errorf("PUT %s: %d %s", path, a.Status, bytes.TrimSpace(a.Body))
	}
	return nil
}

// AddBook adds a book, wanting 201.
func (c *Client) AddBook(ctx context.Context, id string) error {
	a, err := c.Request(ctx, http.MethodPost, "/books", fmt.Sprintf(`{"id":%q,"title":"Book %s","author":"A. Author"}`, id, id))
	if err != nil {
		return err
	}
	if a.Status != http.StatusCreated {
		return fmt.Errorf("POST /books: %d %s", a.Status, bytes.TrimSpace(a.Body))
	}
	return nil
}

// Lend lends the book to the member under a loan id of the book's name, wanting 201, and
// returns the position of the BookLent event and the time the 201 arrived.
func (c *Client) Lend(ctx context.Context, book, member string) (int64, time.Time, error) {
	path := "/books/" + url.PathEscape(book) + "/loans"
	a, err := c.Request(ctx, http.MethodPost, path, fmt.Sprintf(`{"loanId":"loan-%s","memberId":%q}`, book, member))
	committed := time.Now()
	if err != nil {
		return 0, committed, err
	}
	if a.Status != http.StatusCreated {
		return 0, committed, fmt.Errorf("POST %s: %d %s", path, a.Status, bytes.TrimSpace(a.Body))
	}
	var result struct {
		Position int64 `json:"position"`
	}
	if err := json.Unmarshal(a.Body, &result); err != nil || result.Position == 0 {
		return 0, committed, fmt.Errorf("POST %s: no position in %s", path, bytes.TrimSpace(a.Body))
	}
	return result.Position, committed, nil
}
