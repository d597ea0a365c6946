package apitest

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// API is a client of one running service.
type API struct {
	Base string
	// Metrics is the base URL of the service's /metrics listener, when the test knows it.
	Metrics string
	Clock   *Clock // the service's clock, unless the test gave its own
	Store   string // the store's name: "memory" or "postgres"
}

// Response is a whole HTTP answer, its body read.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

var client = &http.Client{Timeout: 30 * time.Second}

// Send makes a request. headers are name, value pairs, added to the request (so a name may
// repeat), except that Content-Type replaces the default and an empty value removes the
// header. A non-nil body is sent as application/json unless headers say otherwise.
func (a *API) Send(t *testing.T, method, path string, body []byte, headers ...string) Response {
	t.Helper()
	r, err := a.TrySend(method, path, body, headers...)
	require.NoError(t, err, "%s %s", method, path)
	return r
}

// TrySend is send for goroutines other than the test's: it returns its error, which is also
// an answer that does not match the OpenAPI document (that answer is returned too).
func (a *API) TrySend(method, path string, body []byte, headers ...string) (Response, error) {
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, a.Base+path, reader)
	if err != nil {
		return Response{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if len(headers)%2 != 0 {
		return Response{}, errors.New("headers come in name, value pairs")
	}
	for i := 0; i < len(headers); i += 2 {
		switch name, value := headers[i], headers[i+1]; {
		case value == "":
			req.Header.Del(name)
		case http.CanonicalHeaderKey(name) == "Content-Type":
			req.Header.Set(name, value)
		default:
			req.Header.Add(name, value)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{}, err
	}
	r := Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
	// Every answer must be one the OpenAPI document allows (see contract.go).
	return r, checkContract(req, r.Status, r.Header, r.Body)
}

// Call sends v encoded as JSON (nil: no body).
func (a *API) Call(t *testing.T, method, path string, v any, headers ...string) Response {
	t.Helper()
	var body []byte
	if v != nil {
		body = MustJSON(t, v)
	}
	return a.Send(t, method, path, body, headers...)
}

// Get sends GET path.
func (a *API) Get(t *testing.T, path string) Response {
	t.Helper()
	return a.Send(t, http.MethodGet, path, nil)
}

// CloseIdleConnections closes the idle keep-alive connections of the client every API shares,
// so that a test can see what a fresh connection gets.
func CloseIdleConnections() { client.CloseIdleConnections() }
