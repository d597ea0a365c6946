package pgtest

import (
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
)

// Blackhole is a TCP proxy that can partition its clients from the server without closing
// anything: once frozen, it drops whatever either side sends and closes nothing, as a network
// that lost its route would. (Proxy.Cut closes connections, which both sides notice at once.)
type Blackhole struct {
	listener net.Listener
	target   string
	frozen   atomic.Bool

	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

// NewBlackhole starts a blackhole proxy to the server behind databaseURL and returns it with
// the URL that goes through it. It stops when the test ends.
func NewBlackhole(t testing.TB, databaseURL string) (*Blackhole, string) {
	t.Helper()
	u, err := url.Parse(databaseURL)
	if err != nil {
		t.Fatalf("pgtest: blackhole: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pgtest: blackhole: %v", err)
	}
	b := &Blackhole{listener: l, target: u.Host}
	b.wg.Go(b.accept)
	t.Cleanup(b.close)
	u.Host = l.Addr().String()
	return b, u.String()
}

// Freeze partitions every connection, open or new.
func (b *Blackhole) Freeze() { b.frozen.Store(true) }

// Thaw lets new connections through again. Connections that were frozen stay dead: their
// bytes are gone, so neither side can make sense of them any more.
func (b *Blackhole) Thaw() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.conns {
		_ = c.Close()
	}
	b.conns = nil
	b.frozen.Store(false)
}

func (b *Blackhole) accept() {
	for {
		client, err := b.listener.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", b.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		b.mu.Lock()
		b.conns = append(b.conns, client, server)
		b.mu.Unlock()
		b.wg.Go(func() { b.pipe(server, client) })
		b.wg.Go(func() { b.pipe(client, server) })
	}
}

// pipe copies src to dst until src ends, then closes dst, unless frozen: then it keeps reading
// src (so that its data is acknowledged and dropped) and leaves dst open.
func (b *Blackhole) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !b.frozen.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil && !b.frozen.Load() {
				_ = src.Close()
				return
			}
		}
		if err != nil {
			if !b.frozen.Load() {
				_ = dst.Close()
			}
			return
		}
	}
}

func (b *Blackhole) close() {
	_ = b.listener.Close()
	b.mu.Lock()
	for _, c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}
