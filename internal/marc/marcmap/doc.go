// Package marcmap reads a MARC 21 bibliographic record (package marc) as what the catalogue
// keeps of a title and its copies: a Bib. It promises that a record is refused only when it is
// no title (no 245, or one without a title: code no245); that anything else it cannot use is
// left out with a Warning, whose Code the import's report prints; and that what it keeps is in
// the service's forms: ISBNs as ISBN-13 (package isbn), material types in lower case, prices in
// hundredths.
//
// # The rules
//
//   - Identity: the 001, and the 003 that says whose number it is, as "003:001" (Bib.Identity);
//     a record without a 001 is kept with a warning (no001).
//   - Title: 245 $a and $b, joined with " : " (unless $a ends with ":", ";" or "=" already),
//     without the ISBD marks that end them (" /", " :", " ;", " =", ",") or a full stop.
//   - Authors: 100, 110 and 700 $a, in the record's order, each once, their ending marks
//     trimmed alike. A full stop stays after an initial ("Tolkien, J. R. R."), an abbreviation
//     that ends names (Inc., Ltd., Co., Corp., Jr., Sr., etc.) or an ellipsis.
//   - ISBNs: each 020 $a, without "ISBN" before it or a qualifier after ("(pbk.)"), read by
//     package isbn as its ISBN-13, each once. One that is not an ISBN, or whose check digit is
//     wrong, is left out with a warning (bad_isbn).
//   - Publisher and year: from the first 264 whose second indicator is 1 (publication), else
//     the first 260, else the first 264: $b, trimmed; the year is the first four digits
//     standing alone in $c ("[2005], ©1965" is 2005), else 008/07-10 when those are digits.
//   - Language: 008/35-37 when it is three lower-case letters, else the first code of 041 $a.
//   - Subjects: 650 and 651 $a, trimmed, each once.
//   - Copies: as Holdings says. By default, each of Koha's 952 is a copy ($p barcode, $y item
//     type as the material type, $o call number, $v price); and MARC 21's holdings: an 852
//     with a barcode in $p is a copy ($h and $i its call number), each 876 is a copy ($p
//     barcode, $c price) at the 852 its $8 links it to, or the only 852, and an 876 whose
//     barcode an 852 gave adds its price to that copy. A copy without a barcode (no_barcode),
//     or with another copy's barcode (duplicate_barcode), is left out; a price that is not an
//     amount (bad_price) is left out, the copy kept. A price is read with its currency before or
//     after it, and "." or "," before its one or two decimals ("12.50", "12,50", "$1,234.50").
//
// # Holdings mapping
//
// A library whose items are elsewhere (a 949, a 945, ...) gives a holdings mapping file, which
// replaces the default: a JSON object naming one field and the subfield codes of a copy's
// parts, or an array of them. Each field with the tag is one copy. barcode is required;
// materialType and price name one code or none; callNumber names one or more, whose values are
// joined with a blank in the field's order. Unknown members are refused, so a misspelt one is
// not silently ignored.
//
//	{"tag": "949", "barcode": "i", "materialType": "t", "callNumber": "c", "price": "p"}
//
//	[
//	  {"tag": "949", "barcode": "i", "callNumber": "ab"},
//	  {"tag": "945", "barcode": "y", "materialType": "t"}
//	]
package marcmap
