package smtptest

import (
	"crypto/tls"
	"net"
	"sync"
	"sync/atomic"
)

// countingListener numbers and tracks every accepted TCP connection.
type countingListener struct {
	net.Listener
	s *Server
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	s := l.s
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nconns++
	cc := &countedConn{Conn: c, n: s.nconns, s: s}
	if s.closed {
		// Close has already closed the connections it knew about; this one must not linger.
		_ = c.Close()
	} else {
		s.conns[cc] = struct{}{}
		s.maxConns = max(s.maxConns, len(s.conns))
	}
	return cc, nil
}

// countedConn is an accepted connection with its number.
type countedConn struct {
	net.Conn
	n    int
	s    *Server
	once sync.Once
	// hangUp makes the next Write close the connection once it has written (see
	// closeAfterReply). Atomic because a BDAT message reaches the session on another goroutine.
	hangUp atomic.Bool
}

// closeAfterReply makes the connection close right after the server's next reply. go-smtp
// writes a one-line reply with a single Write, even through TLS (one record), and every reply
// the session provokes is one line (see replyText), so the next Write is the whole reply.
func (c *countedConn) closeAfterReply() { c.hangUp.Store(true) }

func (c *countedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if c.hangUp.CompareAndSwap(true, false) {
		// Write has handed every byte to the kernel, which sends them before the FIN. A client
		// that waits for each reply (go-smtp's does) has sent nothing since, so there is no
		// unread input that would make the kernel reset the connection instead.
		_ = c.Close()
	}
	return n, err
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.s.mu.Lock()
		delete(c.s.conns, c)
		c.s.mu.Unlock()
	})
	return c.Conn.Close()
}

// countedOf finds the TCP connection under a (possibly TLS) connection.
func countedOf(c net.Conn) *countedConn {
	for {
		switch v := c.(type) {
		case *countedConn:
			return v
		case *tls.Conn:
			c = v.NetConn()
		default:
			return nil
		}
	}
}
