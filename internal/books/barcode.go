package books

import (
	"strings"

	"library/internal/errs"
)

// MaxBarcodeLength is the longest barcode a copy may have.
const MaxBarcodeLength = 32

// Barcode checks a copy's barcode as a scanner or a person typed it, and returns it as the
// library keeps it, or an errs.InvalidRequest naming field (never the value).
//
// A barcode is 1 to MaxBarcodeLength characters: letters A to Z, digits, hyphens and dots, the
// first a letter or a digit. That is what the barcodes libraries print carry (the digits of
// Codabar, the capitals and digits of Code 39 and Code 128) and what a stream id can hold, since
// each barcode is kept unique by a reservation stream of its own (package reservations). Letters
// are kept in capitals: Code 39 has no small letters, and a barcode typed in small letters at the
// desk is the one the scanner reads, so "lib-0042" and "LIB-0042" are one barcode.
func Barcode(field, s string) (string, error) {
	if s == "" {
		return "", errs.E(errs.InvalidRequest, "%s is required", field)
	}
	if len(s) > MaxBarcodeLength || !isBarcodeStart(s[0]) || strings.IndexFunc(s, notBarcode) >= 0 {
		return "", errs.E(errs.InvalidRequest,
			"%s must be 1 to %d letters, digits, hyphens and dots, starting with a letter or digit", field, MaxBarcodeLength)
	}
	return strings.ToUpper(s), nil
}

func isBarcodeStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func notBarcode(r rune) bool {
	return r >= 0x80 || !isBarcodeStart(byte(r)) && r != '-' && r != '.'
}
