package telemetry

import (
	"context"
	"testing"
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
