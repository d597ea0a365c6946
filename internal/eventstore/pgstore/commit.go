package pgstore

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"library/internal/eventstore"
)

// committer writes appends in batches: group commit. An append that arrives while fewer than
// `batches` batches are being written starts one at once, so a lone append never waits; one
// that arrives while they all are waits for the next, which takes every append queued by then
// (at most one per stream, and at most maxBatch) and writes them in one statement: one
// transaction and one WAL flush for them all. Each append still learns on its own whether it
// won its stream's version, and none is answered before its batch has committed.
type committer struct {
	db      querier
	batches int // batches written at once

	mu      sync.Mutex
	queue   []*appendRequest
	writing int
}

// defaultBatches is how many batches are written at once: two, so that one is being written
// while the next gathers the appends that arrive meanwhile, and the server's two cores are both
// at work.
const defaultBatches = 2

// maxBatch bounds the appends in one statement.
const maxBatch = 256

// batchTimeout bounds the writing of one batch, whose appends belong to many requests, so no
// single request's context can cut it short.
const batchTimeout = 10 * time.Second

func newCommitter(db querier, batches int) *committer {
	return &committer{db: db, batches: max(1, batches)}
}

// append queues req and waits for its batch to be written, or for ctx to end. When ctx ends
// while req is still queued, it is taken out and not written; once its batch is being written,
// its outcome is unknown to the caller, as with any append whose answer is lost.
func (c *committer) append(ctx context.Context, req *appendRequest) ([]eventstore.Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	req.done = make(chan appendResult, 1)
	if req.span = trace.SpanFromContext(ctx); req.span.SpanContext().IsValid() || req.span.IsRecording() {
		// A span of its own, under the caller's. Under none, the tracer is one that drops
		// everything, and naming and describing its span would allocate for nothing.
		ctx, req.span = req.span.TracerProvider().Tracer(tracerName).Start(ctx, "append",
			trace.WithAttributes(attribute.Int("library.events", len(req.events))))
		defer req.span.End()
	}
	c.mu.Lock()
	c.queue = append(c.queue, req)
	var own []*appendRequest
	if c.writing < c.batches {
		// A batch to spare: this caller writes the next batch itself (its own append among
		// those queued), which costs a lone append no hand-over to another goroutine.
		own = c.takeLocked()
		// Alone, with no other batch being written: the append notifies other processes in
		// its own statement, one round trip in all. (Under load, the notifier sends one
		// notification for many appends, after their commits, so that appends do not queue on
		// PostgreSQL's notification lock, which a notifying transaction holds to its commit.)
		req.tell = c.writing == 0 && len(own) == 1 && own[0] == req
		c.writing++
	}
	c.mu.Unlock()
	if own != nil {
		c.write(own)
	}
	select {
	case res := <-req.done:
		return res.events, res.err
	case <-ctx.Done():
		c.withdraw(req) // written or not, its answer is lost: the outcome is the caller's to find out
		return nil, ctx.Err()
	}
}

// withdraw takes req out of the queue if it is still there, so that it is not written.
func (c *committer) withdraw(req *appendRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, queued := range c.queue {
		if queued == req {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			return
		}
	}
}

// startLocked starts writing batches while there are appends queued and batches to spare.
func (c *committer) startLocked() {
	for c.writing < c.batches && len(c.queue) > 0 {
		batch := c.takeLocked()
		c.writing++
		go c.write(batch)
	}
}

// takeLocked takes the next batch from the queue, in order: the first append of each stream,
// up to maxBatch; the rest stay queued for the next.
func (c *committer) takeLocked() []*appendRequest {
	var batch, rest []*appendRequest
	streams := make(map[string]bool, len(c.queue))
	for _, req := range c.queue {
		if len(batch) == maxBatch || streams[req.streamID] {
			rest = append(rest, req)
			continue
		}
		streams[req.streamID] = true
		batch = append(batch, req)
	}
	c.queue = rest
	return batch
}

func (c *committer) write(batch []*appendRequest) {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	ctx, span := batchSpan(ctx, batch)
	results := writeBatch(ctx, c.db, batch)
	span.End()
	cancel()
	for i, req := range batch {
		req.done <- results[i]
	}
	c.mu.Lock()
	c.writing--
	c.startLocked()
	c.mu.Unlock()
}

const tracerName = "library/internal/eventstore/pgstore"

// batchSpan starts the span of a batch's write, linked to the spans of the appends it holds,
// which belong to many requests: the batch is a trace of its own, a child of none of them.
func batchSpan(ctx context.Context, batch []*appendRequest) (context.Context, trace.Span) {
	var links []trace.Link
	var tp trace.TracerProvider
	for _, req := range batch {
		if sc := req.span.SpanContext(); sc.IsValid() {
			links = append(links, trace.Link{SpanContext: sc})
			tp = req.span.TracerProvider()
		}
	}
	if tp == nil {
		return ctx, trace.SpanFromContext(ctx)
	}
	return tp.Tracer(tracerName).Start(ctx, "append batch", trace.WithNewRoot(), trace.WithLinks(links...),
		trace.WithAttributes(attribute.Int("library.appends", len(batch))))
}
