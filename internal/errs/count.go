package errs

import "strconv"

// Count writes a number followed by the words that agree with it, for details that count
// things: one after 1 or -1, many after any other number. Count(1, "member waits", "members
// wait") is "1 member waits", and Count(3, ...) "3 members wait".
func Count[N ~int | ~int32 | ~int64](n N, one, many string) string {
	words := many
	if n == 1 || n == -1 {
		words = one
	}
	return strconv.FormatInt(int64(n), 10) + " " + words
}
