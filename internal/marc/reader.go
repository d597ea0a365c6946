package marc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
)

// Format is a way of writing MARC records down.
type Format int

// The formats the package reads and writes.
const (
	ISO2709 Format = iota + 1 // ISO 2709, "binary MARC", .mrc
	MARCXML                   // MARCXML, in the slim namespace or in none
)

func (f Format) String() string {
	switch f {
	case ISO2709:
		return "ISO 2709"
	case MARCXML:
		return "MARCXML"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Reader reads records one at a time from a file of either format.
type Reader struct {
	src interface {
		next() (Record, error)
	}
	format  Format
	gzipped bool
	err     error // io.EOF, or an error of the input's: every call after returns it
}

// sniffLength is how much of the input NewReader looks at to tell the formats apart.
const sniffLength = 512

// NewReader reads the records of r, telling the format by the content: gzip by its magic
// bytes (the stream inside is then told apart the same way), MARCXML when the first character
// other than a byte order mark and white space is "<", ISO 2709 otherwise. It fails only when
// r fails, or a gzip header is broken.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(&sticky{r: r}, bufferSize)
	magic, err := br.Peek(2)
	if len(magic) == 0 && err != nil && !isEOF(err) {
		return nil, err
	}
	gzipped := bytes.HasPrefix(magic, []byte{0x1f, 0x8b})
	if gzipped {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("marc: reading gzip: %w", err)
		}
		br = bufio.NewReaderSize(&sticky{r: zr}, bufferSize)
	}
	// An error after some bytes comes again when the reader reaches it, after the records
	// before it.
	head, err := br.Peek(sniffLength)
	if len(head) == 0 && err != nil && !isEOF(err) {
		return nil, err
	}
	var m *Reader
	if looksLikeXML(head) {
		m = NewXMLReader(br)
	} else {
		m = NewISO2709Reader(br)
	}
	m.gzipped = gzipped
	return m, nil
}

// looksLikeXML reports whether head begins, after a byte order mark and white space, with "<".
func looksLikeXML(head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	head = bytes.TrimLeft(head, " \t\r\n")
	return len(head) > 0 && head[0] == '<'
}

// sticky is a reader that returns its first error, once it has one, on every read after: so
// an error met while telling the format apart is met again in its place.
type sticky struct {
	r   io.Reader
	err error
}

func (s *sticky) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	s.err = err
	return n, err
}

// NewISO2709Reader reads ISO 2709 records from r, which is not gzip.
func NewISO2709Reader(r io.Reader) *Reader {
	return &Reader{src: newISOReader(r), format: ISO2709}
}

// NewXMLReader reads MARCXML records from r, which is not gzip.
func NewXMLReader(r io.Reader) *Reader {
	return &Reader{src: newXMLReader(r), format: MARCXML}
}

// Format is the format the reader reads.
func (r *Reader) Format() Format { return r.format }

// Gzipped reports whether the input was gzip, which the reader decompresses.
func (r *Reader) Gzipped() bool { return r.gzipped }

// Next returns the next record. For a record refused it returns a *RecordError, and the call
// after reads the next record (or returns io.EOF, when the error is the Last). At the end of the input it returns io.EOF; any other error is the input's
// own (a read failed, a gzip stream is corrupt), and every call after returns it again.
func (r *Reader) Next() (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	rec, err := r.src.next()
	if err != nil {
		if ReasonOf(err) == "" {
			r.err = err
		}
		return Record{}, err
	}
	return rec, nil
}
