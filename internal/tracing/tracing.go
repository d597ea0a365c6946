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
	"encoding/hex"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// The package reads and writes traceparent itself (W3C Trace Context, version 00) rather than
// through OpenTelemetry's propagation package, which brings net/http with it: the aggregates,
// which record traceparents, stay free of HTTP. The HTTP edge propagates headers with
// propagation.TraceContext, which speaks the same format.

// Tracer returns the named tracer of tp, or one that records nothing when tp is nil.
func Tracer(tp trace.TracerProvider, name string) trace.Tracer {
	if tp == nil {
		return noop.NewTracerProvider().Tracer(name)
	}
	return tp.Tracer(name)
}

// TraceParent is the W3C traceparent of the span in ctx, "" when there is none.
func TraceParent(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return ""
	}
	// As fmt.Sprintf("00-%s-%s-%s") writes it, in one allocation: every traced command does.
	traceID, spanID, flags := sc.TraceID(), sc.SpanID(), byte(sc.TraceFlags()&trace.FlagsSampled)
	var b [55]byte
	n := copy(b[:], "00-")
	n += hex.Encode(b[n:], traceID[:])
	n += copy(b[n:], "-")
	n += hex.Encode(b[n:], spanID[:])
	n += copy(b[n:], "-")
	n += hex.Encode(b[n:], []byte{flags})
	return string(b[:n])
}

// Link links to the span a traceparent names; ok is false for an empty or malformed one.
func Link(traceparent string) (link trace.Link, ok bool) {
	parts := strings.Split(traceparent, "-")
	if len(parts) < 4 || len(parts[0]) != 2 || parts[0] == "ff" || (parts[0] == "00" && len(parts) != 4) || len(parts[3]) != 2 {
		return trace.Link{}, false
	}
	traceID, err := trace.TraceIDFromHex(parts[1])
	if err != nil {
		return trace.Link{}, false
	}
	spanID, err := trace.SpanIDFromHex(parts[2])
	if err != nil {
		return trace.Link{}, false
	}
	var flags byte
	if _, err := fmt.Sscanf(parts[3], "%02x", &flags); err != nil {
		return trace.Link{}, false
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID,
		TraceFlags: trace.TraceFlags(flags) & trace.FlagsSampled, Remote: true})
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

// Records reports whether t records spans: false for the tracer Tracer gives without a provider,
// so that code on a hot path can leave out what only a span would read.
func Records(t trace.Tracer) bool {
	_, off := t.(noop.Tracer)
	return !off
}
