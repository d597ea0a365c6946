package httpapi

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A request's span is named by its route pattern and records neither the path nor the query,
// nor what a client says of itself (Host, User-Agent, X-Forwarded-For), however long; a
// method that is not HTTP's own is _OTHER. The traceparent it sent is linked to.
func TestSpansRecordTheRouteOnly(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	api := New(Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Rules: testRoutes, TracerProvider: tp}, testModule{})

	long := strings.Repeat("x", 4000)
	secrets := []string{"alice-" + long[:100], "q=" + long[:50], "198.51.100.23", "agent-" + long, "host-" + long[:200]}
	req := httptest.NewRequest("GET", "/ids/alice-"+long[:100]+"?q="+long[:50], nil)
	req.RemoteAddr = "192.0.2.1:40000"
	req.Header.Set("X-Forwarded-For", "198.51.100.23, 203.0.113.9")
	req.Header.Set("User-Agent", "agent-"+long)
	req.Header.Set("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	req.Host = "host-" + long[:200]
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), "alice-", "the handler got the request as it came")

	odd := httptest.NewRequest("GET", "/ids/bob", nil)
	odd.Method = "PROPFIND" + long[:300]
	api.ServeHTTP(httptest.NewRecorder(), odd)

	got := spans.GetSpans()
	require.Len(t, got, 2)
	s := got[0]
	assert.Equal(t, "GET /ids/{id}", s.Name)
	attrs := map[attribute.Key]string{}
	for _, kv := range s.Attributes {
		attrs[kv.Key] = kv.Value.String()
		for _, secret := range secrets {
			assert.NotContains(t, kv.Value.String(), secret, "%s", kv.Key)
		}
	}
	assert.Equal(t, "/ids/{id}", attrs["http.route"])
	assert.Equal(t, "GET", attrs["http.request.method"])
	assert.Equal(t, "200", attrs["http.response.status_code"])
	for _, key := range []attribute.Key{"url.path", "url.query", "url.full", "user_agent.original"} {
		assert.NotContains(t, attrs, key)
	}
	assert.NotEqual(t, "198.51.100.23", attrs["client.address"])
	require.Len(t, s.Links, 1, "the client's traceparent is linked to")
	assert.Equal(t, "0af7651916cd43dd8448eb211c80319c", s.Links[0].SpanContext.TraceID().String())
	assert.False(t, s.Parent.IsValid(), "not taken as the parent")

	assert.Equal(t, "_OTHER unmatched", got[1].Name)
	for _, kv := range got[1].Attributes {
		assert.NotContains(t, kv.Value.String(), "PROPFIND", "%s", kv.Key)
	}
}
