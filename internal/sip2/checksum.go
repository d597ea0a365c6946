package sip2

import "fmt"

// Checksum is the AZ field's value for b, the bytes of a message as sent from its first
// character through "AZ" inclusive: their sum, kept to 16 bits and negated (two's complement),
// as four uppercase hex digits.
func Checksum(b []byte) string {
	var sum uint16
	for _, c := range b {
		sum += uint16(c)
	}
	return fmt.Sprintf("%04X", -sum)
}
