package report

import (
	"fmt"
	"strings"
	"time"

	"library/bench/internal/apart"
	"library/bench/internal/figures"
)

// coldTargets adds the cold read's and the cold payment's targets: on the longest stream
// within 2 × of the shortest.
func (r Report) coldTargets(t *TargetRows) {
	points := r.Cold.Points
	as := fmt.Sprintf("median of %d rounds, each the first request after a restart", r.Cold.Rounds)
	if len(points) < 2 {
		t.missing("cold GET and cold payment on the longest stream ≤ 2 × on the shortest", as+" (needs two BENCH_COLD_EVENTS)")
		return
	}
	first, last := points[0], points[len(points)-1]
	t.add(fmt.Sprintf("cold GET on %s events ≤ 2 × on %s", figures.Thousands(last.Events), figures.Thousands(first.Events)), as,
		fmt.Sprintf("%.2f × (%s, %s)", last.GETRatio, figures.FormatLatency(last.GETMedian), figures.FormatLatency(first.GETMedian)), last.GETRatio <= 2)
	t.add(fmt.Sprintf("cold payment on %s events ≤ 2 × on %s", figures.Thousands(last.Events), figures.Thousands(first.Events)), as,
		fmt.Sprintf("%.2f × (%s, %s)", last.PayRatio, figures.FormatLatency(last.PayMedian), figures.FormatLatency(first.PayMedian)), last.PayRatio <= 2)
}

// coldSection is the cold reads' and payments' figures.
func (r Report) coldSection() Section {
	c := r.Cold
	s := Section{
		Title: "Cold load",
		notes: []string{
			fmt.Sprintf("A service process of its own, at its default settings (`SNAPSHOT_EVERY` 200), on a database of its own holding account streams of %s events: `FineCharged` events written straight into the events table, one statement a stream, then `ANALYZE events`, as autovacuum would do soon after so many rows (%s in all), with the metadata the service writes for a fine charged without an `Idempotency-Key` (no command id; the command's name, its payload's fingerprint, a request id, the actor `open`). The process then reads each account once (*first read*, one at a time after the processors have read the log), which is a long read for every stream of %d events or more and so writes its snapshot, as it would in production; *snapshot at* is the version of the snapshot the database then holds (— for none). Each of %d rounds restarts the process, so that it keeps nothing in memory, waits until it holds the processors' leases with no lag, reads an account of %d events and pays into it, untimed (so that the process has connected to the database, this program to it, and its first read and first append are behind it), then times `GET /accounts/{id}` once on every stream, each when the processors have read the log (the payments before it included); restarts it again and times the first payment (`POST /accounts/{id}/payments`, 1 cent, a fresh `Idempotency-Key`) into every stream the same way. The round's first stream moves on by one each round. Times are from sending the request to having read the answer, one request at a time, on one keep-alive connection; each column is the median of the rounds, and *vs %s* its ratio over the shortest stream's.",
				figures.JoinThousands(apart.EventsOf(c.Points)), figures.FormatSeconds(c.Seed), 200, c.Rounds, apart.ColdWarmEvents, shortestEvents(c.Points)),
		},
		align:  "|--:|--:|--:|--:|--:|--:|--:|",
		Header: []string{"events", "first read", "snapshot at", "cold GET", "vs " + shortestEvents(c.Points), "cold payment", "vs " + shortestEvents(c.Points)},
	}
	for _, p := range c.Points {
		snap := "—"
		if p.Snapshot > 0 {
			snap = figures.Thousands(int(p.Snapshot))
		}
		s.Rows = append(s.Rows, []string{figures.Thousands(p.Events), figures.FormatLatency(p.FirstRead), snap,
			figures.FormatLatency(p.GETMedian), fmt.Sprintf("%.2f ×", p.GETRatio), figures.FormatLatency(p.PayMedian), fmt.Sprintf("%.2f ×", p.PayRatio)})
	}
	s.notes = append(s.notes, "Every round's times, in ms, GET then payment: "+coldRounds(c.Points)+".")
	return s
}

// shortestEvents is the shortest stream's length, as the column's label names it.
func shortestEvents(points []apart.ColdPoint) string {
	if len(points) == 0 {
		return "the shortest"
	}
	return figures.Thousands(points[0].Events) + " events"
}

// coldRounds lists each stream's times, sorted: "2: 1.2, 1.3 / 1.9, 2.0; ...".
func coldRounds(points []apart.ColdPoint) string {
	ms := func(ds []time.Duration) string {
		var s []string
		for _, d := range ds {
			s = append(s, fmt.Sprintf("%.1f", d.Seconds()*1000))
		}
		return strings.Join(s, ", ")
	}
	var out []string
	for _, p := range points {
		out = append(out, fmt.Sprintf("%s events: %s / %s", figures.Thousands(p.Events), ms(p.GET), ms(p.Pay)))
	}
	return strings.Join(out, "; ")
}
