package sip2

import "io"

// Writer writes messages to a connection.
type Writer struct {
	w       io.Writer
	f       Framing
	lineEnd string
}

// NewWriter writes messages to w as f frames them.
func NewWriter(w io.Writer, f Framing) *Writer {
	return &Writer{w: w, f: f, lineEnd: f.lineEnd()}
}

// Write encodes m in the Framing's character set (Framing.Encode), appends the line end and
// writes it in one call to the underlying writer. A message that does not encode writes nothing.
func (w *Writer) Write(m Message) error {
	if err := w.f.Check(); err != nil {
		return err
	}
	b, err := w.f.Encode(m)
	if err != nil {
		return err
	}
	_, err = w.w.Write(append(b, w.lineEnd...))
	return err
}
