package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"library/internal/app"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/smtptest"
	"library/internal/testkit/syncbuf"
	"library/internal/tracing"
)

// tracedReplica is a replica whose spans go to an in-memory exporter, and whose log lines go to
// a buffer through the trace-aware handler.
type tracedReplica struct {
	*api
	spans *tracetest.InMemoryExporter
	logs  *syncbuf.Buffer
}

func startTracedReplica(t *testing.T, cfg app.Config, name string) tracedReplica {
	t.Helper()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	cfg.Tuning.TracerProvider, cfg.ReplicaID = tp, name
	logs := &syncbuf.Buffer{}
	logger := slog.New(tracing.LogHandler(slog.NewJSONHandler(logs, nil)))
	base, _ := runServiceLogging(t, cfg, logger)
	return tracedReplica{api: &api{Base: base, Store: "postgres"}, spans: spans, logs: logs}
}

// span waits for a span that matches and returns it.
func (r tracedReplica) span(t *testing.T, what string, match func(s tracetest.SpanStub) bool) tracetest.SpanStub {
	t.Helper()
	var found tracetest.SpanStub
	eventually(t, 10*time.Second, func() bool {
		for _, s := range r.spans.GetSpans() {
			if match(s) {
				found = s
				return true
			}
		}
		return false
	}, "%s", what)
	return found
}

func named(name string) func(tracetest.SpanStub) bool {
	return func(s tracetest.SpanStub) bool { return s.Name == name }
}

func linksTo(s tracetest.SpanStub, id trace.TraceID) bool {
	for _, l := range s.Links {
		if l.SpanContext.TraceID() == id {
			return true
		}
	}
	return false
}

// A loan is one request on replica a; its email goes out minutes later from replica b. The
// request's traceparent rides in the events' metadata, so b's spans of the email, and of the
// late fine when the book comes back late, link to a's requests; a's request log line carries
// its trace id.
func TestTraceFromRequestToEmail(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	clk := newClock()
	cfg := fastBackground(app.Config{DatabaseURL: pgtest.NewDatabase(t), SMTPURL: smtp.URL(), FinePerDay: 30, Tuning: app.Tuning{Now: clk.Now}})
	b := startTracedReplica(t, cfg, "b") // first, so that it holds every lease
	eventually(t, 10*time.Second, func() bool {
		return processorStatus(t, b.api, notifications).HoldsLease && processorStatus(t, b.api, lateFines).HoldsLease
	}, "b holds the outbox and the saga")
	a := startTracedReplica(t, cfg, "a")

	setContact(t, a.api, "alice", "Alice", "alice@example.org")
	requireResult(t, a.Call(t, http.MethodPost, "/books", obj{"id": "dune", "title": "Dune", "author": "Frank Herbert"}),
		http.StatusCreated, "book-dune")
	addTrace := a.span(t, "a's span of the account's opening", named("PUT /accounts/{memberId}")).SpanContext.TraceID()
	// An append to one stream (the account's opening; a book's adding writes its title's
	// stream too, in an append of its own) is written in a batch, with those of other
	// requests: a span of its own, linked to theirs, with the database call in it.
	batch := a.span(t, "a's span of the batch", func(s tracetest.SpanStub) bool {
		return s.Name == "append batch" && linksTo(s, addTrace)
	})
	a.span(t, "a span of the batch's database call", func(s tracetest.SpanStub) bool {
		return strings.HasPrefix(s.Name, "db ") && s.Parent.SpanID() == batch.SpanContext.SpanID()
	})

	due := clk.Now().Add(24 * time.Hour).Format(time.RFC3339)
	requireResult(t, a.Call(t, http.MethodPost, "/books/dune/loans", obj{"loanId": "loan-1", "memberId": "alice", "dueAt": due}),
		http.StatusCreated, "book-dune")
	lendSpan := a.span(t, "a's span of the lend", named("POST /books/{bookId}/loans"))
	lendTrace := lendSpan.SpanContext.TraceID()
	command := a.span(t, "a's span of the command", func(s tracetest.SpanStub) bool {
		return s.Name == "command lendBook" && s.SpanContext.TraceID() == lendTrace
	})
	assert.Equal(t, lendSpan.SpanContext.SpanID(), command.Parent.SpanID(), "the command is a child of the request")
	// A loan is written to the book and the member's account in one transaction of its own:
	// the request's trace holds it, database calls and all.
	appendSpan := a.span(t, "a's span of the lend's append", func(s tracetest.SpanStub) bool {
		return s.Name == "append" && s.SpanContext.TraceID() == lendTrace
	})
	assert.Equal(t, command.SpanContext.SpanID(), appendSpan.Parent.SpanID())
	a.span(t, "a span of the lend's database calls", func(s tracetest.SpanStub) bool {
		return strings.HasPrefix(s.Name, "db ") && s.Parent.SpanID() == appendSpan.SpanContext.SpanID()
	})

	smtp.WaitForMessages(t, 1, 10*time.Second)
	send := b.span(t, "b's span of the email", named("send loan email"))
	assert.True(t, linksTo(send, lendTrace), "the email's span links to the lend's trace: %+v", send.Links)
	assert.NotEqual(t, lendTrace, send.SpanContext.TraceID(), "in a trace of its own")
	for _, s := range a.spans.GetSpans() {
		assert.NotEqual(t, "send loan email", s.Name, "a, the standby, sent nothing")
	}

	clk.Advance(3*24*time.Hour + time.Hour)
	requireResult(t, a.Call(t, http.MethodPost, "/books/dune/returns", obj{"loanId": "loan-1"}), http.StatusCreated, "book-dune")
	returnTrace := a.span(t, "a's span of the return", named("POST /books/{bookId}/returns")).SpanContext.TraceID()
	saga := b.span(t, "b's span of the late fine", named("late-fines BookReturned"))
	assert.True(t, linksTo(saga, returnTrace), "the saga's span links to the return's trace")
	fine := b.span(t, "b's span of the fine's command", func(s tracetest.SpanStub) bool {
		return s.Name == "command chargeFine" && s.SpanContext.TraceID() == saga.SpanContext.TraceID()
	})
	assert.Equal(t, saga.SpanContext.SpanID(), fine.Parent.SpanID())
	eventually(t, 10*time.Second, func() bool { return getAccount(t, a.api, "alice").Balance == 2*30 }, "the fine charged")

	found := false
	for _, line := range bytes.Split([]byte(a.logs.String()), []byte("\n")) {
		var rec map[string]any
		if json.Unmarshal(line, &rec) == nil && rec["msg"] == "request" && rec["route"] == "/books/{bookId}/loans" {
			found = true
			assert.Equal(t, lendTrace.String(), rec["trace_id"], "the request's log line carries its trace id")
		}
	}
	assert.True(t, found, "a logged the lend")
}
