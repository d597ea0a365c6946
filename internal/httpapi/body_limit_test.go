package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
)

// bodyOfSize is a valid JSON object of exactly size bytes, for the test API's /decode. One byte
// over MaxBodyBytes, only the router's cap can refuse it: DecodeJSON alone would take it.
func bodyOfSize(t *testing.T, size int) []byte {
	t.Helper()
	prefix, suffix := `{"name":"`, `","amount":1}`
	body := []byte(prefix + strings.Repeat("a", size-len(prefix)-len(suffix)) + suffix)
	require.Len(t, body, size)
	require.True(t, json.Valid(body))
	return body
}

// A chunked body declares no length, so only the router's cap can stop it: one byte over the
// limit, sent over a real connection, is a 413 problem.
func TestChunkedBodyOverTheLimit(t *testing.T) {
	t.Parallel()
	handler, _ := newTestAPI(t)
	var encodings sync.Map // what each request declared, by its size
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		encodings.Store(r.Header.Get("X-Size"), fmt.Sprint(r.TransferEncoding, r.ContentLength))
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(server.Close)

	for _, size := range []int{MaxBodyBytes + 1, MaxBodyBytes} {
		// io.MultiReader hides the length, so the client sends Transfer-Encoding: chunked.
		req, err := http.NewRequest(http.MethodPost, server.URL+"/decode", io.MultiReader(bytes.NewReader(bodyOfSize(t, size))))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Size", strconv.Itoa(size))
		resp, err := server.Client().Do(req)
		require.NoError(t, err)
		answer, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		declared, _ := encodings.Load(strconv.Itoa(size))
		require.Equal(t, "[chunked] -1", declared, "the request declared no length")
		if size > MaxBodyBytes {
			require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, "%d bytes: %.200s", size, answer)
			require.Contains(t, string(answer), `"code":"`+string(errs.PayloadTooLarge)+`"`)
		} else {
			require.Equal(t, http.StatusOK, resp.StatusCode, "exactly the limit is taken: %.200s", answer)
		}
	}
}

// A request that claims a small Content-Length but whose body goes on is cut off at the limit
// too: the declared length is not what is trusted.
func TestBodyLongerThanItsContentLength(t *testing.T) {
	t.Parallel()
	handler, _ := newTestAPI(t)
	req := httptest.NewRequest(http.MethodPost, "/decode", bytes.NewReader(bodyOfSize(t, MaxBodyBytes+1)))
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = 16
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code, "%.200s", rec.Body.String())
	require.Equal(t, errs.PayloadTooLarge, decodeProblem(t, rec).Code)
}
