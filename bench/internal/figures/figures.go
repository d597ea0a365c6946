// Package figures formats and summarises the numbers the benchmark measures.
package figures

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// FormatSeconds writes d in seconds, to a tenth.
func FormatSeconds(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }

// Thousands writes n, 0 or more, with a comma between groups of three digits: 100,000.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// JoinThousands writes ns with Thousands, joined by commas and spaces.
func JoinThousands(ns []int) string {
	var s []string
	for _, n := range ns {
		s = append(s, Thousands(n))
	}
	return strings.Join(s, ", ")
}

// Percentile of sorted durations, nearest rank.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(p*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// MaxOf is the largest of xs, or 0 for none.
func MaxOf(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// FormatMB writes bytes in megabytes (10⁶), to a tenth.
func FormatMB(bytes int64) string { return fmt.Sprintf("%.1f MB", float64(bytes)/1e6) }

// FormatLatency writes d in the unit that suits it: µs below a millisecond, ms above.
func FormatLatency(d time.Duration) string {
	switch {
	case d >= 100*time.Millisecond:
		return fmt.Sprintf("%.0f ms", d.Seconds()*1000)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", d.Seconds()*1000)
	default:
		return fmt.Sprintf("%.0f µs", d.Seconds()*1e6)
	}
}

// Median is the middle of xs, or the mean of the two middle ones; 0 for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Wrap breaks text into lines of at most width characters, between words.
func Wrap(text string, width int) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(text) {
		n := len([]rune(w))
		switch {
		case i == 0:
		case line+1+n > width:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(w)
		line += n
	}
	return b.String()
}
