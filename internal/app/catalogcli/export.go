package catalogcli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"golang.org/x/text/language"

	"library/internal/app"
	"library/internal/catalogimport"
	"library/internal/marc"
)

// ExportMARC runs `library export marc`: the catalogue, every title with its copies, written to
// out as MARCXML with Koha's holdings (952), a title at a time, so that a library can leave as
// easily as it came: imported into an empty library, the export is the same catalogue.
func ExportMARC(ctx context.Context, cfg app.Config, logger *slog.Logger, out io.Writer) error {
	store, closeStore, err := app.OpenLog(ctx, cfg, logger, "export marc")
	if err != nil {
		return err
	}
	defer closeStore()
	im := importer(store, cfg, ImportOptions{})
	w := marc.NewXMLWriter(out)
	err = catalogimport.Export(ctx, store, im.Titles, im.Books, func(r catalogimport.Record) error { return w.Write(marcOf(r)) })
	if err != nil {
		return err
	}
	return w.Close()
}

// exportLeader is a new record's leader: a book (language material, a monograph) in UTF-8;
// the writer works out the lengths.
const exportLeader = "00000nam a2200000 a 4500"

// marcOf is a title with its copies as a MARC 21 record that an import reads back as the same.
func marcOf(r catalogimport.Record) marc.Record {
	agency, number, ok := strings.Cut(r.ControlNumber, ":")
	if !ok {
		agency, number = "", r.ControlNumber
	}
	rec := marc.Record{Leader: exportLeader}
	rec.Fields = append(rec.Fields, marc.ControlField("001", number))
	if agency != "" {
		rec.Fields = append(rec.Fields, marc.ControlField("003", agency))
	}
	rec.Fields = append(rec.Fields, marc.ControlField("008", fixedData(r)))
	if r.ISBN != "" {
		rec.Fields = append(rec.Fields, marc.DataField("020", ' ', ' ', marc.Subfield{Code: 'a', Value: r.ISBN}))
	}
	for i, a := range r.Authors {
		tag := "700"
		if i == 0 {
			tag = "100"
		}
		rec.Fields = append(rec.Fields, marc.DataField(tag, '1', ' ', marc.Subfield{Code: 'a', Value: a}))
	}
	rec.Fields = append(rec.Fields, marc.DataField("245", '1', '0', marc.Subfield{Code: 'a', Value: r.Title}))
	if r.Publisher != "" || r.Year != 0 {
		var pub []marc.Subfield
		if r.Publisher != "" {
			pub = append(pub, marc.Subfield{Code: 'b', Value: r.Publisher})
		}
		if r.Year != 0 {
			pub = append(pub, marc.Subfield{Code: 'c', Value: fmt.Sprint(r.Year)})
		}
		rec.Fields = append(rec.Fields, marc.DataField("264", ' ', '1', pub...))
	}
	for _, s := range r.Subjects {
		rec.Fields = append(rec.Fields, marc.DataField("650", ' ', '4', marc.Subfield{Code: 'a', Value: s}))
	}
	for _, c := range r.Copies {
		rec.Fields = append(rec.Fields, itemField(c))
	}
	return rec
}

// fixedData is the 008: the date entered left blank, the year of publication and the
// language, each where MARC 21 keeps it, the rest fill characters.
func fixedData(r catalogimport.Record) string {
	b := []byte(strings.Repeat(" ", 40))
	if r.Year != 0 {
		b[6] = 's'
		copy(b[7:11], fmt.Sprintf("%04d", r.Year))
	}
	if base, err := language.ParseBase(r.Language); err == nil && r.Language != "" {
		copy(b[35:38], base.ISO3())
	}
	return string(b)
}

// itemField is a copy as Koha's 952: barcode, item type, call number and price.
func itemField(c catalogimport.Copy) marc.Field {
	subfields := []marc.Subfield{{Code: 'p', Value: c.Barcode}}
	if c.MaterialType != "" {
		subfields = append(subfields, marc.Subfield{Code: 'y', Value: c.MaterialType})
	}
	if c.CallNumber != "" {
		subfields = append(subfields, marc.Subfield{Code: 'o', Value: c.CallNumber})
	}
	if c.Price > 0 {
		subfields = append(subfields, marc.Subfield{Code: 'v', Value: fmt.Sprintf("%d.%02d", c.Price/100, c.Price%100)})
	}
	return marc.DataField("952", ' ', ' ', subfields...)
}
