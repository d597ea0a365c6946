package telemetry

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// QueryTracer makes a span of every query a pgx connection sends on behalf of something traced
// (a request, a command, an email): its name is the statement's first word, its attributes the
// statement itself (every statement the service sends is a constant: arguments are never
// recorded). Queries of background loops outside any span (polls, lease checks, notifications)
// make none, so that an idle service sends no spans.
func QueryTracer(tp trace.TracerProvider) pgx.QueryTracer {
	return queryTracer{tracer: tp.Tracer("library/postgres")}
}

type queryTracer struct{ tracer trace.Tracer }

func (q queryTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	ctx, _ = q.tracer.Start(ctx, spanName(data.SQL), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system.name", "postgresql"), attribute.String("db.query.text", data.SQL)))
	return ctx
}

func (q queryTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	if data.Err != nil {
		span.SetStatus(codes.Error, "the query failed")
	}
	span.End()
}

// spanName is the statement's operation: its first word, or "WITH" for a common table
// expression, upper-cased, as "db SELECT".
func spanName(sql string) string {
	word, _, _ := strings.Cut(strings.TrimSpace(sql), " ")
	word, _, _ = strings.Cut(word, "\n")
	if word == "" {
		return "db"
	}
	return "db " + strings.ToUpper(word)
}
