package telemetry

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

// Traces are off unless an OTEL_* variable asks for them, and then go out over OTLP/HTTP only.
func TestFromEnv(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, vars := range []map[string]string{
		nil,
		{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"},
		{"OTEL_SERVICE_NAME": "library"},
	} {
		tp, shutdown, err := FromEnv(ctx, env(vars), "a")
		if err != nil || tp != nil {
			t.Errorf("%v: %v, %v; want tracing off", vars, tp, err)
		}
		if err := shutdown(ctx); err != nil {
			t.Error(err)
		}
	}
	for _, vars := range []map[string]string{
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"},
		{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"},
		{"OTEL_TRACES_EXPORTER": "otlp"},
		{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
	} {
		tp, shutdown, err := FromEnv(ctx, env(vars), "a")
		if err != nil || tp == nil {
			t.Errorf("%v: %v, %v; want tracing on", vars, tp, err)
			continue
		}
		if err := shutdown(ctx); err != nil {
			t.Errorf("%v: shutdown: %v", vars, err)
		}
	}
	for _, vars := range []map[string]string{
		{"OTEL_TRACES_EXPORTER": "zipkin"},
		{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc"},
	} {
		if tp, _, err := FromEnv(ctx, env(vars), "a"); err == nil || tp != nil {
			t.Errorf("%v: %v, %v; want an error", vars, tp, err)
		}
	}
}

func TestSpanName(t *testing.T) {
	t.Parallel()
	for sql, want := range map[string]string{
		"SELECT 1":                     "db SELECT",
		"\nWITH head AS (SELECT 1)":    "db WITH",
		"insert into events values ()": "db INSERT",
		"":                             "db",
	} {
		if got := spanName(sql); got != want {
			t.Errorf("%q: %q, want %q", sql, got, want)
		}
	}
}

// A span's attribute values are cut at MaxAttributeLength, however long what was recorded:
// a statement, or anything a client sent.
func TestAttributeValuesAreCapped(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := newTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	_, span := tp.Tracer("test").Start(context.Background(), "request")
	span.SetAttributes(attribute.String("user_agent.original", strings.Repeat("a", 10_000)), attribute.String("short", "kept"),
		attribute.StringSlice("many", []string{strings.Repeat("b", 5000), "c"}))
	span.End()

	got := spans.GetSpans()
	require.Len(t, got, 1)
	attrs := map[attribute.Key]attribute.Value{}
	for _, kv := range got[0].Attributes {
		attrs[kv.Key] = kv.Value
	}
	assert.Len(t, attrs["user_agent.original"].AsString(), MaxAttributeLength)
	assert.Equal(t, "kept", attrs["short"].AsString())
	assert.Equal(t, []string{strings.Repeat("b", MaxAttributeLength), "c"}, attrs["many"].AsStringSlice())

	// The standard variable may set another cap, but not take it away.
	t.Setenv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "16")
	spans.Reset()
	tp16 := newTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp16.Shutdown(context.Background()) })
	_, span = tp16.Tracer("test").Start(context.Background(), "request")
	span.SetAttributes(attribute.String("long", strings.Repeat("a", 100)))
	span.End()
	assert.Len(t, spans.GetSpans()[0].Attributes[0].Value.AsString(), 16)
}
