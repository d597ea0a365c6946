package smtptest

import (
	"bytes"
	"encoding/base64"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"slices"
	"strings"
	"time"
)

// Message is one message the server accepted.
type Message struct {
	// From and To are the envelope: the MAIL FROM address and the RCPT TO addresses, which
	// are who the message was really delivered to whatever its headers say.
	From string
	To   []string
	// MessageID is the Message-ID header exactly as sent, angle brackets included.
	MessageID string
	// Subject is the Subject header with RFC 2047 encoded words decoded.
	Subject string
	// Header holds the parsed header fields, values as sent (not decoded). It is nil when the
	// message could not be parsed.
	Header mail.Header
	// Body is the text body with its transfer encoding undone and CRLF line ends turned into
	// LF. For a multipart message it is the first text/plain part. SMTP ends every message
	// with a line break, so a body sent without a final one arrives with one.
	Body string
	// Raw is the message as it arrived after DATA.
	Raw []byte
	// Conn is the number of the SMTP connection that delivered the message: 1 for the first
	// connection the server accepted, 2 for the second, and so on.
	Conn int
	// Received is when the server accepted the message.
	Received time.Time
}

// parseMessage fills the content fields of a Message. It does not fail: a message that is not
// valid RFC 5322 is still recorded, with only Raw set, so that a test can look at it.
func parseMessage(raw []byte) Message {
	m := Message{Raw: raw}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return m
	}
	m.Header = msg.Header
	m.MessageID = msg.Header.Get("Message-ID")
	m.Subject = msg.Header.Get("Subject")
	if decoded, err := new(mime.WordDecoder).DecodeHeader(m.Subject); err == nil {
		m.Subject = decoded
	}
	body, err := textBody(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
	if err != nil {
		return m
	}
	m.Body = strings.ReplaceAll(body, "\r\n", "\n")
	return m
}

// textBody decodes a body, descending into a multipart body to find its first text/plain part.
func textBody(contentType, transferEncoding string, body io.Reader) (string, error) {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err == nil && strings.HasPrefix(mediaType, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			part, err := mr.NextRawPart() // raw: the transfer encoding is undone below
			if err != nil {
				return "", err
			}
			ct := part.Header.Get("Content-Type")
			if pt, _, _ := mime.ParseMediaType(ct); ct == "" || pt == "text/plain" || strings.HasPrefix(pt, "multipart/") {
				return textBody(ct, part.Header.Get("Content-Transfer-Encoding"), part)
			}
		}
	}
	switch strings.ToLower(strings.TrimSpace(transferEncoding)) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	}
	b, err := io.ReadAll(body)
	return string(b), err
}

func cloneMessages(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		m.To = slices.Clone(m.To)
		m.Raw = slices.Clone(m.Raw)
		if m.Header != nil {
			h := make(mail.Header, len(m.Header))
			for k, v := range maps.All(m.Header) {
				h[k] = slices.Clone(v)
			}
			m.Header = h
		}
		out[i] = m
	}
	return out
}
