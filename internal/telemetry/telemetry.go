// Package telemetry wires OpenTelemetry traces for the service: the SDK and its OTLP/HTTP
// exporter from the standard OTEL_* variables, and a span per PostgreSQL query. A span's
// attribute values are cut at MaxAttributeLength.
//
// Traces are configured only by the standard OTEL_* variables, and are off (no SDK, no span
// recorded, nothing added to requests or queries) when neither OTEL_EXPORTER_OTLP_ENDPOINT (or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) nor OTEL_TRACES_EXPORTER is set. Spans go out over
// OTLP/HTTP; the exporter's own variables (headers, timeout, TLS, ...) and the SDK's
// (OTEL_TRACES_SAMPLER, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, ...) apply as they
// document.
package telemetry

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// FromEnv makes the tracer provider the OTEL_* variables ask for. It returns a nil provider
// when tracing is off, and a shutdown that flushes the spans not yet exported.
func FromEnv(ctx context.Context, getenv func(string) string, replica string) (trace.TracerProvider, func(context.Context) error, error) {
	nothing := func(context.Context) error { return nil }
	exporter := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))
	endpoint := getenv("OTEL_EXPORTER_OTLP_ENDPOINT") + getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	switch {
	case exporter == "none", exporter == "" && endpoint == "":
		return nil, nothing, nil
	case exporter != "" && exporter != "otlp":
		return nil, nothing, fmt.Errorf("OTEL_TRACES_EXPORTER must be otlp or none")
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"} {
		if p := getenv(name); p != "" && p != "http/protobuf" {
			return nil, nothing, fmt.Errorf("%s must be http/protobuf: the service sends OTLP over HTTP", name)
		}
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nothing, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(
		attribute.String("service.instance.id", replica)))
	if err != nil {
		return nil, nothing, err
	}
	if fromEnv, err := resource.New(ctx, resource.WithFromEnv()); err == nil {
		if merged, err := resource.Merge(res, fromEnv); err == nil {
			res = merged
		}
	}
	tp := newTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return tp, tp.Shutdown, nil
}

// MaxAttributeLength is the longest value, in bytes, that a span's attribute keeps: a longer
// one is cut to it, so that nothing a client sends can make a span as long as it likes. It is
// long enough for all but the longest of the service's own SQL statements (db.query.text),
// whose start still names it. OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT (or
// OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT) may set another, but not none.
const MaxAttributeLength = 1024

// newTracerProvider is the SDK's provider with the service's span limits: the SDK's own,
// from the OTEL_* variables, with attribute values capped at MaxAttributeLength unless a
// variable sets a cap.
func newTracerProvider(opts ...sdktrace.TracerProviderOption) *sdktrace.TracerProvider {
	limits := sdktrace.NewSpanLimits()
	if limits.AttributeValueLengthLimit < 0 {
		limits.AttributeValueLengthLimit = MaxAttributeLength
	}
	return sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{sdktrace.WithRawSpanLimits(limits)}, opts...)...)
}
