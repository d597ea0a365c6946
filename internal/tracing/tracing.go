// Package tracing follows a loan from the click to the email with OpenTelemetry traces, on the
// OpenTelemetry API alone (the SDK and the exporter are wired by package telemetry).
//
// What it promises:
//   - A request's W3C traceparent rides in the metadata of the events it wrote
//     (TraceParent), so work done later from the log, in any replica, links back to it (Link).
//   - Log lines written with a context that carries a span have its trace_id and span_id
//     (LogHandler).
package tracing

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Propagator is the W3C Trace Context propagator: traceparent and tracestate.
func Propagator() propagation.TextMapPropagator { return propagation.TraceContext{} }

// Tracer returns the named tracer of tp, or one that records nothing when tp is nil.
func Tracer(tp trace.TracerProvider, name string) trace.Tracer {
	if tp == nil {
		return noop.NewTracerProvider().Tracer(name)
	}
	return tp.Tracer(name)
}

// TraceParent is the W3C traceparent of the span in ctx, "" when there is none.
func TraceParent(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	carrier := propagation.MapCarrier{}
	Propagator().Inject(ctx, carrier)
	return carrier.Get("traceparent")
}

// Link links to the span a traceparent names; ok is false for an empty or malformed one.
func Link(traceparent string) (link trace.Link, ok bool) {
	if traceparent == "" {
		return trace.Link{}, false
	}
	ctx := Propagator().Extract(context.Background(), propagation.MapCarrier{"traceparent": traceparent})
	sc := trace.SpanContextFromContext(ctx)
	return trace.Link{SpanContext: sc}, sc.IsValid()
}

// LinkedTo returns the span start option that links a span to the work a traceparent names,
// if it names any.
func LinkedTo(traceparent string) trace.SpanStartOption {
	if link, ok := Link(traceparent); ok {
		return trace.WithLinks(link)
	}
	return trace.WithLinks()
}
