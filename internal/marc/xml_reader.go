package marc

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// SlimNamespace is MARCXML's namespace.
const SlimNamespace = "http://www.loc.gov/MARC21/slim"

// MaxXMLRecord is the most MARCXML the reader reads for one record, or between two records,
// in bytes: ten times the longest ISO 2709 record, room for the markup around its text.
const MaxXMLRecord = 10 * (MaxRecordLength + 1)

// errTooLarge is what budgetReader returns once the budget is spent.
var errTooLarge = errors.New("marc: MARCXML record too large")

// budgetReader hands out at most left bytes until reset: it keeps the XML decoder, which would
// otherwise buffer a text or a tag of any length, to one record's worth of input. It keeps the
// input's own error, so that it is told apart from the decoder's.
type budgetReader struct {
	r     io.Reader
	left  int
	input error // an error the input returned, other than io.EOF
}

func (b *budgetReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, errTooLarge
	}
	if len(p) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= n
	if err != nil && !errors.Is(err, io.EOF) {
		b.input = err
	}
	return n, err
}

func (b *budgetReader) reset() { b.left = MaxXMLRecord }

// xmlReader reads the MARCXML records of a stream of XML tokens one at a time: every <record>
// in the slim namespace, or in none, wherever it is (in a <collection>, alone, or inside
// another document such as an OAI-PMH response).
type xmlReader struct {
	dec     *xml.Decoder
	budget  *budgetReader
	ordinal int
	ended   bool // the XML cannot be read further
}

func newXMLReader(r io.Reader) *xmlReader {
	budget := &budgetReader{r: r}
	budget.reset()
	dec := xml.NewDecoder(budget)
	dec.CharsetReader = utf8Only
	return &xmlReader{dec: dec, budget: budget}
}

// utf8Only reads the encodings that are UTF-8 under other names, and refuses the rest:
// MARCXML is UTF-8. (The decoder reads "UTF-8" itself, in any case.)
func utf8Only(label string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "utf8", "us-ascii", "ascii":
		return input, nil
	}
	return nil, fmt.Errorf("the XML declares the encoding %q: MARCXML is read in UTF-8 only", label)
}

func (r *xmlReader) next() (Record, error) {
	if r.ended {
		return Record{}, io.EOF
	}
	for {
		offset := r.dec.InputOffset()
		tok, err := r.dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return Record{}, io.EOF
			}
			return Record{}, r.fail(err, RecordError{Ordinal: r.ordinal + 1, Offset: offset}, "after the last record")
		}
		start, ok := tok.(xml.StartElement)
		if !ok || !isMARC(start.Name, "record") {
			continue
		}
		r.ordinal++
		line, _ := r.dec.InputPos()
		at := RecordError{Ordinal: r.ordinal, Offset: offset, Line: line}
		r.budget.reset()
		rec, bad, err := r.readRecord()
		r.budget.reset()
		at.ControlNumber = rec.ControlNumber()
		switch {
		case err != nil:
			return Record{}, r.fail(err, at, "in the record")
		case bad != nil:
			at.Reason, at.Message = bad.reason, bad.message
			return Record{}, &at
		}
		return rec, nil
	}
}

// fail turns an error of the decoder into a RecordError when it is the XML's fault, and ends
// the reading: the decoder cannot go on after an error. An error of the input's own is
// returned as it is.
func (r *xmlReader) fail(err error, at RecordError, where string) error {
	var syntax *xml.SyntaxError
	switch {
	case errors.As(err, &syntax) && syntax.Msg == "unexpected EOF", errors.Is(err, io.ErrUnexpectedEOF):
		at.Reason, at.Message = ReasonTruncated, "the input ends "+where+": it was cut short"
	case errors.As(err, &syntax) && syntax.Msg == "invalid UTF-8":
		at.Reason, at.Message = ReasonInvalidUTF8, fmt.Sprintf("line %d is not UTF-8; the XML cannot be read past it", syntax.Line)
	case errors.As(err, &syntax):
		at.Reason, at.Message = ReasonBadXML, fmt.Sprintf("line %d: %s; the XML cannot be read past it", syntax.Line, syntax.Msg)
	case errors.Is(err, errTooLarge):
		at.Reason, at.Message = ReasonTooLarge, fmt.Sprintf("over %d bytes of MARCXML %s; the XML is not read past it", MaxXMLRecord, where)
	case r.budget.input != nil && errors.Is(err, r.budget.input):
		return err
	default: // the decoder's other complaints: an XML version or an encoding it does not read
		line, _ := r.dec.InputPos()
		at.Reason, at.Message = ReasonBadXML, fmt.Sprintf("line %d: %v; the XML cannot be read past it", line, err)
	}
	r.ended = true
	at.Last = true
	return &at
}

// isMARC reports whether name is MARCXML's element local, in the slim namespace or in none.
func isMARC(name xml.Name, local string) bool {
	return name.Local == local && (name.Space == SlimNamespace || name.Space == "")
}

// readRecord reads the elements of a <record> up to its end tag, whatever is wrong with them,
// so that the next record is read next: the first fault found is the refusal.
func (r *xmlReader) readRecord() (Record, *refusal, error) {
	var rec Record
	var bad *refusal
	note := func(why *refusal) {
		if bad == nil {
			bad = why
		}
	}
	leaders := 0
	for {
		tok, err := r.dec.Token()
		if err != nil {
			return rec, bad, err
		}
		switch t := tok.(type) {
		case xml.EndElement: // the record's, since the decoder checks that elements nest
			if leaders != 1 {
				note(refuse(ReasonBadLeader, "the record has %d leaders, not one", leaders))
			}
			return rec, bad, nil
		case xml.StartElement:
			switch {
			case isMARC(t.Name, "leader"):
				leaders++
				text, err := r.text()
				if err != nil {
					return rec, bad, err
				}
				if !validLeader(text) {
					note(refuse(ReasonBadLeader, "the leader %q is not 24 printable ASCII characters", text))
				}
				rec.Leader = text
			case isMARC(t.Name, "controlfield"):
				f, why, err := r.controlField(t)
				if err != nil {
					return rec, bad, err
				}
				note(why)
				rec.Fields = append(rec.Fields, f)
			case isMARC(t.Name, "datafield"):
				f, why, err := r.dataField(t)
				if err != nil {
					return rec, bad, err
				}
				note(why)
				rec.Fields = append(rec.Fields, f)
			default:
				if err := r.dec.Skip(); err != nil {
					return rec, bad, err
				}
			}
		}
	}
}

func (r *xmlReader) controlField(start xml.StartElement) (Field, *refusal, error) {
	tag := attr(start, "tag")
	value, err := r.text()
	f := Field{Tag: tag, Value: value}
	if err != nil {
		return f, nil, err
	}
	if !validTag(tag) || !IsControlTag(tag) {
		return f, refuse(ReasonBadField, "controlfield tag %q is not a control field's (00 and a letter or digit)", tag), nil
	}
	return f, checkField(f), nil
}

func (r *xmlReader) dataField(start xml.StartElement) (Field, *refusal, error) {
	f := Field{Tag: attr(start, "tag")}
	var bad *refusal
	if !validTag(f.Tag) || IsControlTag(f.Tag) {
		bad = refuse(ReasonBadField, "datafield tag %q is not a data field's (three letters or digits, not 00 first)", f.Tag)
	}
	ind1, ok1 := indicator(attr(start, "ind1"))
	ind2, ok2 := indicator(attr(start, "ind2"))
	f.Ind1, f.Ind2 = ind1, ind2
	if (!ok1 || !ok2) && bad == nil {
		bad = refuse(ReasonBadField, "field %s: indicators %q and %q are not one character each", f.Tag, attr(start, "ind1"), attr(start, "ind2"))
	}
	for {
		tok, err := r.dec.Token()
		if err != nil {
			return f, bad, err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			if bad == nil {
				bad = checkField(f)
			}
			return f, bad, nil
		case xml.StartElement:
			if !isMARC(t.Name, "subfield") {
				if err := r.dec.Skip(); err != nil {
					return f, bad, err
				}
				continue
			}
			code := attr(t, "code")
			value, err := r.text()
			if err != nil {
				return f, bad, err
			}
			if len(code) != 1 && bad == nil {
				bad = refuse(ReasonBadField, "field %s: subfield code %q is not one character", f.Tag, code)
			}
			if len(code) == 1 {
				f.Subfields = append(f.Subfields, Subfield{Code: code[0], Value: value})
			}
		}
	}
}

// indicator is an indicator attribute's value, blank when it is missing or empty.
func indicator(s string) (byte, bool) {
	switch len(s) {
	case 0:
		return ' ', true
	case 1:
		return s[0], true
	}
	return ' ', false
}

// text reads the text of the element just started, up to its end tag, leaving out any
// element inside it.
func (r *xmlReader) text() (string, error) {
	var text []byte
	for {
		tok, err := r.dec.Token()
		if err != nil {
			return string(text), err
		}
		switch t := tok.(type) {
		case xml.CharData:
			text = append(text, t...)
		case xml.StartElement:
			if err := r.dec.Skip(); err != nil {
				return string(text), err
			}
		case xml.EndElement:
			return string(text), nil
		}
	}
}

func attr(start xml.StartElement, name string) string {
	for _, a := range start.Attr {
		if a.Name.Space == "" && a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}
