package marc

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
)

// ISO2709Writer writes records as ISO 2709 in UTF-8, one after another, each with one Write
// to the underlying writer.
type ISO2709Writer struct {
	w io.Writer
}

// NewISO2709Writer writes records to w.
func NewISO2709Writer(w io.Writer) *ISO2709Writer { return &ISO2709Writer{w: w} }

// Write writes one record as MarshalISO2709 does; a record it refuses is not written, and the
// writer can go on with the next.
func (w *ISO2709Writer) Write(r Record) error {
	b, err := MarshalISO2709(r)
	if err != nil {
		return err
	}
	_, err = w.w.Write(b)
	return err
}

// XMLWriter writes records as a MARCXML <collection> in the slim namespace, one record at a
// time: the XML declaration and the collection's start tag before the first record, each
// record with one Write to the underlying writer, and the end tag on Close.
type XMLWriter struct {
	w       io.Writer
	started bool
	closed  bool
}

// NewXMLWriter writes a collection of records to w.
func NewXMLWriter(w io.Writer) *XMLWriter { return &XMLWriter{w: w} }

const collectionStart = xml.Header + `<collection xmlns="` + SlimNamespace + `">` + "\n"

// Write writes one record. Its leader is the one ISO 2709 would write (lengths, base address,
// a for UTF-8), so that a record written in either format reads back the same; a record
// MarshalISO2709 refuses, or whose text XML 1.0 cannot carry (control characters other than
// tab, line feed and carriage return), is refused here too, and not written.
func (w *XMLWriter) Write(r Record) error {
	if w.closed {
		return errors.New("marc: write to a closed XMLWriter")
	}
	leader, err := layout(r)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if !w.started {
		b.WriteString(collectionStart)
	}
	b.WriteString("<record>\n  <leader>")
	b.WriteString(leader)
	b.WriteString("</leader>\n")
	for _, f := range r.Fields {
		if err := writeXMLField(&b, f); err != nil {
			return err
		}
	}
	b.WriteString("</record>\n")
	if _, err := w.w.Write(b.Bytes()); err != nil {
		return err
	}
	w.started = true
	return nil
}

// Close ends the collection (an empty one, when no record was written). It does not close the
// underlying writer.
func (w *XMLWriter) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	end := "</collection>\n"
	if !w.started {
		end = collectionStart + end
	}
	_, err := io.WriteString(w.w, end)
	return err
}

func writeXMLField(b *bytes.Buffer, f Field) error {
	if f.IsControl() {
		b.WriteString(`  <controlfield tag="`)
		b.WriteString(f.Tag)
		b.WriteString(`">`)
		if err := writeXMLText(b, f.Tag, f.Value); err != nil {
			return err
		}
		b.WriteString("</controlfield>\n")
		return nil
	}
	b.WriteString(`  <datafield tag="`)
	b.WriteString(f.Tag)
	b.WriteString(`" ind1="`)
	_ = xml.EscapeText(b, []byte{f.Ind1})
	b.WriteString(`" ind2="`)
	_ = xml.EscapeText(b, []byte{f.Ind2})
	b.WriteString("\">\n")
	for _, s := range f.Subfields {
		b.WriteString(`    <subfield code="`)
		_ = xml.EscapeText(b, []byte{s.Code})
		b.WriteString(`">`)
		if err := writeXMLText(b, f.Tag, s.Value); err != nil {
			return err
		}
		b.WriteString("</subfield>\n")
	}
	b.WriteString("  </datafield>\n")
	return nil
}

// writeXMLText writes s escaped, line ends and tabs as character references so that they read
// back as they were; a character XML 1.0 cannot carry is refused.
func writeXMLText(b *bytes.Buffer, tag, s string) error {
	for _, c := range s {
		if !xmlChar(c) {
			return unwritable("field %s holds %U, which XML 1.0 cannot carry", tag, c)
		}
	}
	return xml.EscapeText(b, []byte(s))
}

// xmlChar reports whether XML 1.0 allows c in text.
func xmlChar(c rune) bool {
	return c == '\t' || c == '\n' || c == '\r' ||
		0x20 <= c && c <= 0xD7FF || 0xE000 <= c && c <= 0xFFFD || 0x10000 <= c && c <= 0x10FFFF
}
