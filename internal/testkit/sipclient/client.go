// Package sipclient plays a self-check kiosk for the project's tests: it dials a SIP2 listener,
// sends requests with error detection on (AY sequence numbers cycling 0 to 9, AZ checksums),
// and reads each answer, checking its checksum and that it echoes the sequence number. A
// context's deadline or cancellation bounds each exchange through the connection's deadlines.
// Builders make the common requests (requests.go).
package sipclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"library/internal/sip2"
)

// Client is one kiosk's connection. Its methods are not safe for concurrent use: a kiosk sends
// one request and waits for its answer.
type Client struct {
	conn net.Conn
	r    *sip2.Reader
	w    *sip2.Writer
	f    sip2.Framing
	seq  int
}

// Dial connects to a SIP2 listener at addr, framing messages as f says.
func Dial(ctx context.Context, addr string, f sip2.Framing) (*Client, error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return &Client{conn: conn, r: sip2.NewReader(conn, f), w: sip2.NewWriter(conn, f), f: f}, nil
}

// Send writes m with the next sequence number and its checksum, and returns the answer, whose
// checksum the Reader checked. An answer must echo the sequence number, except a Request SC
// Resend (96), which a listener sends, without one, for a message it could not read: that is
// returned as it came.
func (c *Client) Send(ctx context.Context, m sip2.Message) (sip2.Message, error) {
	m.HasSeq, m.Seq, m.ChecksumOnly = true, c.seq, false
	c.seq = (c.seq + 1) % 10
	defer c.bound(ctx)()
	if err := c.w.Write(m); err != nil {
		return sip2.Message{}, fmt.Errorf("sipclient: send %s: %w", m.Code, err)
	}
	resp, err := c.r.ReadMessage()
	if err != nil {
		return sip2.Message{}, fmt.Errorf("sipclient: answer to %s: %w", m.Code, err)
	}
	if resp.Code != "96" && (!resp.HasSeq || resp.Seq != m.Seq) {
		return resp, fmt.Errorf("sipclient: answer %s to %s (AY%d) does not echo its sequence number: has %v, AY%d",
			resp.Code, m.Code, m.Seq, resp.HasSeq, resp.Seq)
	}
	return resp, nil
}

// SendRaw writes line as it is, then the line end, and returns the text of the next message
// read, decoded to UTF-8 and unchecked: for tests of what a listener does with bad input.
func (c *Client) SendRaw(ctx context.Context, line []byte) ([]byte, error) {
	defer c.bound(ctx)()
	out := append(append([]byte(nil), line...), lineEnd(c.f)...)
	if _, err := c.conn.Write(out); err != nil {
		return nil, fmt.Errorf("sipclient: send raw: %w", err)
	}
	text, err := c.r.Read()
	if err != nil {
		return nil, fmt.Errorf("sipclient: answer to raw: %w", err)
	}
	return text, nil
}

// SendOnly writes line as SendRaw does and reads nothing: a kiosk whose answer never comes,
// because its listener is killed once the message is on its way.
func (c *Client) SendOnly(ctx context.Context, line []byte) error {
	defer c.bound(ctx)()
	out := append(append([]byte(nil), line...), lineEnd(c.f)...)
	if _, err := c.conn.Write(out); err != nil {
		return fmt.Errorf("sipclient: send only: %w", err)
	}
	return nil
}

// Close closes the connection.
func (c *Client) Close() error {
	return c.conn.Close()
}

// bound puts ctx's deadline on the connection and breaks off the exchange when ctx is done; the
// function it returns lifts both.
func (c *Client) bound(ctx context.Context) func() {
	deadline, _ := ctx.Deadline() // the zero time, no deadline, when ctx has none
	_ = c.conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = c.conn.SetDeadline(time.Unix(1, 0)) })
	return func() {
		if stop() {
			_ = c.conn.SetDeadline(time.Time{})
		}
	}
}

func lineEnd(f sip2.Framing) string {
	if f.LineEnd == "" {
		return "\r"
	}
	return f.LineEnd
}

// IsTimeout says whether err is an exchange broken off by its context or the connection's deadline.
func IsTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		(errors.As(err, &ne) && ne.Timeout())
}
