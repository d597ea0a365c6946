// Package marcgen writes MARC 21 catalogues of any size for the tests and the benchmark: record
// i (from 1) is the same title in every run, with an ISBN of its own, and one copy, or two for
// every other record (1.5 copies a title), each with a barcode of its own.
package marcgen

import (
	"fmt"
	"io"
	"strconv"

	"library/internal/marc"
)

// Record is the catalogue's record i.
func Record(i int) marc.Record {
	id := fmt.Sprintf("%09d", i)
	r := marc.Record{Leader: "00000nam a2200000 a 4500", Fields: []marc.Field{
		marc.ControlField("001", id), marc.ControlField("003", "GEN"),
		marc.ControlField("008", fmt.Sprintf("      s%04d    xxu           000 1 eng d", 1900+i%120)),
		marc.DataField("020", ' ', ' ', marc.Subfield{Code: 'a', Value: ISBN(i)}),
		marc.DataField("100", '1', ' ', marc.Subfield{Code: 'a', Value: fmt.Sprintf("Writer %d, Ann.", i%5000)}),
		marc.DataField("245", '1', '0', marc.Subfield{Code: 'a', Value: fmt.Sprintf("Title number %d :", i)},
			marc.Subfield{Code: 'b', Value: "a generated record /"}),
		marc.DataField("264", ' ', '1', marc.Subfield{Code: 'b', Value: "Generated Press,"}, marc.Subfield{Code: 'c', Value: strconv.Itoa(1900+i%120) + "."}),
		marc.DataField("650", ' ', '0', marc.Subfield{Code: 'a', Value: fmt.Sprintf("Subject %d.", i%300)}),
	}}
	for c := range Copies(i) {
		r.Fields = append(r.Fields, marc.DataField("952", ' ', ' ', marc.Subfield{Code: 'p', Value: Barcode(i, c)},
			marc.Subfield{Code: 'y', Value: "BK"}, marc.Subfield{Code: 'o', Value: "GEN " + id}, marc.Subfield{Code: 'v', Value: "12.50"}))
	}
	return r
}

// Copies is how many copies record i has: two for even i, one for odd.
func Copies(i int) int { return 1 + (i+1)%2 }

// Barcode is the barcode of record i's copy c (from 0).
func Barcode(i, c int) string { return fmt.Sprintf("39%011d%d", i, c) }

// ISBN is record i's ISBN-13: 978 and i, with its check digit.
func ISBN(i int) string {
	digits := fmt.Sprintf("978%09d", i%1_000_000_000)
	sum := 0
	for k, d := range digits {
		w := 1
		if k%2 == 1 {
			w = 3
		}
		sum += int(d-'0') * w
	}
	return digits + strconv.Itoa((10-sum%10)%10)
}

// Write writes records from to to (both included) to w as ISO 2709.
func Write(w io.Writer, from, to int) error {
	out := marc.NewISO2709Writer(w)
	for i := from; i <= to; i++ {
		if err := out.Write(Record(i)); err != nil {
			return err
		}
	}
	return nil
}
