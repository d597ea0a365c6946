package pgstore

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// notifyChannel is the PostgreSQL notification channel that appends signal on.
const notifyChannel = "library_events"

// notifyInterval is the least time between two notifications: what it adds, at most, to the
// time another process takes to see an append.
const notifyInterval = 5 * time.Millisecond

// notify tells other processes that the log has grown, and by events of which types: one
// pg_notify after appends have committed, however many appends happened while the previous one
// was being sent, its payload the types they appended (see payloadOf). Sending it after the
// commit, not inside the append, keeps appends to different streams from queueing on
// PostgreSQL's notification lock, which a notifying transaction holds through its commit. A
// notification lost to a crash or an outage costs readers a poll interval, nothing more.
func (p *Postgres) notify(ctx context.Context) {
	defer close(p.notifierDone)
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.appended:
		}
		p.appendedMu.Lock()
		appended := len(p.appendedTypes)
		payload := payloadOf(p.appendedTypes)
		p.appendedTypes = p.appendedTypes[:0]
		p.appendedMu.Unlock()
		if appended == 0 {
			continue // sent already, with the notification before
		}
		sent := time.Now()
		notifyCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := p.pool.Exec(notifyCtx, "SELECT pg_notify($1, $2)", notifyChannel, payload)
		cancel()
		if err != nil && ctx.Err() == nil {
			p.logger.Debug("append notification not sent; readers elsewhere fall back to polling", "error", translate(notifyCtx, err))
		}
		// Under load, one notification covers the appends of an interval.
		timer := time.NewTimer(notifyInterval - time.Since(sent))
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
	}
}

// Subscribe implements eventstore.Store. The first subscriber starts a listener on a dedicated
// connection; it stops when the last subscription ends.
func (p *Postgres) Subscribe(ctx context.Context, types ...string) <-chan struct{} {
	return p.subscribers.Subscribe(ctx, types...)
}

// startListener and stopListener run under the subscribers' lock. A stopped listener may
// still be winding down when the next one starts; that overlap is harmless.
func (p *Postgres) startListener() {
	ctx, cancel := context.WithCancel(context.Background())
	p.stopListening = cancel
	p.listeners.Add(1)
	go func() {
		defer p.listeners.Done()
		p.listen(ctx)
	}()
}

func (p *Postgres) stopListener() {
	if p.stopListening != nil {
		p.stopListening()
		p.stopListening = nil
	}
}

// listen holds a LISTEN connection until ctx ends, reconnecting with backoff when it breaks.
func (p *Postgres) listen(ctx context.Context) {
	const maxBackoff = 5 * time.Second
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := p.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		p.logger.Warn("event notifications interrupted; readers fall back to polling until they resume",
			"error", translate(ctx, err), "retry_in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

func (p *Postgres) listenOnce(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, p.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return err
	}
	// Appends may have happened while no one was listening.
	p.subscribers.Wake()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		p.subscribers.Wake(typesOf(n.Payload)...)
	}
}

// maxPayload keeps a notification's payload well under PostgreSQL's limit (8000 bytes).
const maxPayload = 4000

// payloadOf is a notification's payload for appends of types: the types, separated by commas,
// or "" (every reader wakes) when they would not fit or a type holds a comma.
func payloadOf(types []string) string {
	payload := strings.Join(types, ",")
	if len(payload) > maxPayload || strings.Count(payload, ",") != max(len(types)-1, 0) {
		return ""
	}
	return payload
}

// typesOf reads a notification's payload: no types (every reader wakes) for "".
func typesOf(payload string) []string {
	if payload == "" {
		return nil
	}
	return strings.Split(payload, ",")
}
