package sip2

import (
	"testing"
	"time"
)

func mustDate(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := ParseDate(s, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestFormatDate(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	at := time.Date(2026, 3, 14, 8, 30, 5, 0, time.UTC)
	if got := FormatDate(at.In(paris)); got != "20260314    093005" {
		t.Errorf("FormatDate = %q", got)
	}
	if got := FormatDateUTC(at.In(paris)); got != "20260314   Z083005" {
		t.Errorf("FormatDateUTC = %q", got)
	}
	if len(FormatDate(at)) != DateLength || len(BlankDate) != DateLength {
		t.Error("not 18 characters")
	}
}

func TestParseDate(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	at := time.Date(2026, 3, 14, 8, 30, 5, 0, time.UTC)
	for s, want := range map[string]time.Time{
		"20260314    093005": at, // blanks: local time, read in the location given
		"20260314   Z083005": at,
		"20260314Z   083005": at,
		"20260314   A093005": at, // one hour east
		"20260314   R033005": at, // five hours west
		"20260314   K183005": at, // ten hours east: J is not a zone
		"20260313   Y203005": at, // twelve hours west, the day before
	} {
		got, err := ParseDate(s, paris)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseDate(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", BlankDate} {
		if got, err := ParseDate(s, paris); err != nil || !got.IsZero() {
			t.Errorf("ParseDate(%q) = %v, %v; want the zero Time", s, got, err)
		}
	}
	for _, s := range []string{"20260314    09300", "20261314    093005", "20260314   J093005", "20260314  EST093005",
		"2026031x    093005", "20260230    093005", "20260314    25000"} {
		if _, err := ParseDate(s, paris); err == nil {
			t.Errorf("ParseDate(%q) gave no error", s)
		}
	}
	if got, _ := ParseDate("20260314    083005", nil); !got.Equal(at) {
		t.Errorf("a nil location is not UTC: %v", got)
	}
}
