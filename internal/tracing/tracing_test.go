package tracing

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The package's traceparents are the W3C propagator's, both ways.
func TestTraceParentIsTheW3CPropagators(t *testing.T) {
	t.Parallel()
	w3c := propagation.TraceContext{}
	tp := sdktrace.NewTracerProvider()
	defer func() { _ = tp.Shutdown(context.Background()) }()
	ctx, span := tp.Tracer("test").Start(context.Background(), "lend")
	defer span.End()
	carrier := propagation.MapCarrier{}
	w3c.Inject(ctx, carrier)
	if got := TraceParent(ctx); got != carrier.Get("traceparent") {
		t.Errorf("TraceParent %q, the propagator writes %q", got, carrier.Get("traceparent"))
	}
	for _, parent := range []string{
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
		"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-future",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
		"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-zz",
	} {
		want := trace.SpanContextFromContext(w3c.Extract(context.Background(), propagation.MapCarrier{"traceparent": parent}))
		link, ok := Link(parent)
		if ok != want.IsValid() || (ok && !link.SpanContext.Equal(want)) {
			t.Errorf("Link(%q) = %v, %v; the propagator reads %v", parent, link.SpanContext, ok, want)
		}
	}
}

// A span's traceparent names it, and a link made from it points at it.
func TestTraceParentAndLink(t *testing.T) {
	t.Parallel()
	if TraceParent(context.Background()) != "" {
		t.Error("no span, no traceparent")
	}
	if _, ok := Link(""); ok {
		t.Error("an empty traceparent links nowhere")
	}
	if _, ok := Link("00-zz-nonsense-01"); ok {
		t.Error("a malformed traceparent links nowhere")
	}
	tp := sdktrace.NewTracerProvider()
	defer func() { _ = tp.Shutdown(context.Background()) }()
	ctx, span := tp.Tracer("test").Start(context.Background(), "lend")
	defer span.End()
	parent := TraceParent(ctx)
	link, ok := Link(parent)
	if !ok || link.SpanContext.TraceID() != span.SpanContext().TraceID() || link.SpanContext.SpanID() != span.SpanContext().SpanID() {
		t.Errorf("traceparent %q links to %v, want the span %v", parent, link.SpanContext, span.SpanContext())
	}
	if TraceParent(context.Background()) != "" || TraceParent(ctx) == "" {
		t.Error("the traceparent is the context's")
	}
}

// A log line written with a span's context has its trace and span ids; others have none.
func TestLogHandlerAddsTheTraceID(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := slog.New(LogHandler(slog.NewJSONHandler(&buf, nil))).With("replica", "a")
	tp := sdktrace.NewTracerProvider()
	defer func() { _ = tp.Shutdown(context.Background()) }()
	ctx, span := tp.Tracer("test").Start(context.Background(), "request")
	logger.InfoContext(ctx, "traced")
	span.End()
	logger.Info("untraced")
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	var traced, untraced map[string]any
	if err := json.Unmarshal(lines[0], &traced); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(lines[1], &untraced); err != nil {
		t.Fatal(err)
	}
	if traced["trace_id"] != span.SpanContext().TraceID().String() || traced["span_id"] != span.SpanContext().SpanID().String() || traced["replica"] != "a" {
		t.Errorf("traced line %v", traced)
	}
	if _, ok := untraced["trace_id"]; ok {
		t.Errorf("untraced line %v", untraced)
	}
}

// Without a provider nothing records; with one, its tracers do.
func TestRecordsOnlyWithAProvider(t *testing.T) {
	t.Parallel()
	tp := sdktrace.NewTracerProvider()
	defer func() { _ = tp.Shutdown(context.Background()) }()
	if Records(Tracer(nil, "test")) || !Records(Tracer(tp, "test")) {
		t.Errorf("Records: %v without a provider, %v with one", Records(Tracer(nil, "test")), Records(Tracer(tp, "test")))
	}
}
