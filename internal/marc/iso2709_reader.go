package marc

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// bufferSize holds the longest record ISO 2709 can write, so that a record is looked at
// whole in the buffer before any of it is consumed.
const bufferSize = 1 << 17

// isoReader reads ISO 2709 records one at a time, never holding more than its buffer.
type isoReader struct {
	br      *bufio.Reader
	offset  int64 // bytes consumed so far
	ordinal int
	ended   bool // the input was cut in the middle of a record: nothing follows
}

func newISOReader(r io.Reader) *isoReader {
	return &isoReader{br: bufio.NewReaderSize(r, bufferSize)}
}

// next returns the next record, a *RecordError for a record refused, io.EOF at the end, or
// an error of the input's own, after which it returns that error again.
func (r *isoReader) next() (Record, error) {
	if r.ended {
		return Record{}, io.EOF
	}
	if err := r.skipBlanks(); err != nil {
		return Record{}, err
	}
	r.ordinal++
	start := r.offset
	rec, bad, err := r.frame()
	if err != nil {
		r.ordinal--
		return Record{}, err
	}
	if bad != nil {
		return Record{}, &RecordError{Ordinal: r.ordinal, Offset: start, ControlNumber: bad.controlNumber,
			Reason: bad.reason, Message: bad.message, Last: r.ended}
	}
	return rec, nil
}

// framed is a refusal with the control number read from the refused bytes.
type framed struct {
	*refusal
	controlNumber string
}

// frame reads one record's bytes by the length its leader gives, checks that a record
// terminator ends them, and parses them. A record refused is consumed up to its terminator,
// so the next call reads the next record whatever was wrong with this one.
func (r *isoReader) frame() (Record, *framed, error) {
	head, err := r.br.Peek(5)
	if err != nil {
		if !isEOF(err) {
			return Record{}, nil, err
		}
		r.discard(len(head))
		r.ended = true
		if len(head) == 0 {
			return Record{}, &framed{refusal: refuse(ReasonTruncated, "the compressed input is cut short")}, nil
		}
		return Record{}, &framed{refusal: refuse(ReasonTruncated, "the input ends %d bytes into a record", len(head))}, nil
	}
	length, ok := digits(head)
	if !ok {
		return Record{}, r.skipBad(0, refuse(ReasonBadLeader, "the record length (leader/00-04) %q is not digits", head)), nil
	}
	if length < minRecordLength {
		return Record{}, r.skipBad(0, refuse(ReasonBadLeader, "the record length %d is shorter than a leader and two terminators (%d)", length, minRecordLength)), nil
	}
	b, err := r.br.Peek(length)
	if len(b) < length {
		if err != nil && !isEOF(err) {
			return Record{}, nil, err
		}
		if end := bytes.IndexByte(b, recordTerminator); end >= 0 {
			return Record{}, r.skipTo(b, end, refuse(ReasonBadLeader, "the record length is %d but a record terminator ends it after %d bytes", length, end+1)), nil
		}
		cn := controlNumberOf(b)
		r.discard(len(b))
		r.ended = true
		return Record{}, &framed{refusal: refuse(ReasonTruncated, "the input ends %d bytes into a record of %d", len(b), length), controlNumber: cn}, nil
	}
	if b[length-1] != recordTerminator {
		if end := bytes.IndexByte(b, recordTerminator); end >= 0 {
			return Record{}, r.skipTo(b, end, refuse(ReasonBadLeader, "the record length is %d but a record terminator ends it after %d bytes", length, end+1)), nil
		}
		why := refuse(ReasonNoRecordTerminator, "the record length is %d but no record terminator ends it there", length)
		cn := controlNumberOf(b) // before leaderAt, whose Peek may move the buffer under b
		if r.leaderAt(length) {
			r.discard(length)
			return Record{}, &framed{refusal: why, controlNumber: cn}, nil
		}
		return Record{}, r.skipBad(length, why), nil
	}
	rec, bad := parseISO2709(b)
	if bad != nil {
		return Record{}, r.skipTo(b, length-1, bad), nil
	}
	r.discard(length)
	return rec, nil, nil
}

// skipTo consumes a refused record that ends at b[end], its terminator, and names it.
func (r *isoReader) skipTo(b []byte, end int, why *refusal) *framed {
	f := &framed{refusal: why, controlNumber: controlNumberOf(b[:end+1])}
	r.discard(end + 1)
	return f
}

// skipBad consumes a refused record whose end is unknown: at least n bytes of it, then up to
// and including the next record terminator, or to the end of the input. Its control number is
// read from what the buffer holds of it.
func (r *isoReader) skipBad(n int, why *refusal) *framed {
	b, _ := r.br.Peek(r.br.Buffered())
	f := &framed{refusal: why, controlNumber: controlNumberOf(b)}
	r.discard(n)
	for {
		chunk, err := r.br.ReadSlice(recordTerminator)
		r.offset += int64(len(chunk))
		if !errors.Is(err, bufio.ErrBufferFull) {
			return f // found, or the input ended (an error of the input's comes again next time)
		}
	}
}

// leaderAt reports whether the input n bytes on ends, or holds there what looks like the leader
// of a next record: a record length and a base address in digits, and 45 (MARC 21's entry map)
// at 20-21. Then a record without its terminator costs only itself.
func (r *isoReader) leaderAt(n int) bool {
	b, err := r.br.Peek(n + LeaderLength)
	if len(b) == n && isEOF(err) {
		return true
	}
	if len(b) < n+LeaderLength {
		return false
	}
	next := b[n:]
	_, okLength := digits(next[0:5])
	_, okBase := digits(next[12:17])
	return okLength && okBase && next[20] == '4' && next[21] == '5'
}

// skipBlanks consumes line ends, tabs and blanks between records, which some files put there.
func (r *isoReader) skipBlanks() error {
	for {
		c, err := r.br.ReadByte()
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil // a gzip stream cut short: frame says the input is truncated
		}
		if err != nil {
			return err
		}
		if c != '\n' && c != '\r' && c != ' ' && c != '\t' {
			return r.br.UnreadByte()
		}
		r.offset++
	}
}

func (r *isoReader) discard(n int) {
	d, _ := r.br.Discard(n)
	r.offset += int64(d)
}

// isEOF reports whether err is the input's end: io.EOF, or io.ErrUnexpectedEOF, which a gzip
// stream cut short returns.
func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}
