package report

import (
	"fmt"
	"time"

	"library/bench/internal/figures"
)

// profileSection is the profile's figures.
func (r Report) profileSection() Section {
	p := r.Profile
	sampled := time.Duration(0)
	if p.Commands > 0 {
		sampled = p.CPU / time.Duration(p.Commands)
	}
	s := Section{
		Title: "Where the service's time goes",
		notes: []string{
			fmt.Sprintf("A CPU profile of the service (`PPROF_ADDR`) while %d workers pay as *commands* do, for %s: %d payments, %.2f of the machine's %d cores busy in the service. Its CPU per payment is %s: its user and system time from `/proc/<pid>/stat` (in ticks of 10 ms) read right before and right after the payments, over the payments made, the profiler's own cost and the background processors' work included; the profile's samples make it %s. Each row is the share of the profile's samples whose stack holds that part of the code, so the rows overlap (a handler's JSON counts in the HTTP server's row and in JSON's). PostgreSQL and this program run on the same cores, apart from these figures.",
				p.Concurrency, figures.FormatLatency(p.Wall), p.Commands, p.ProcCPU.Seconds()/p.Wall.Seconds(), r.Env.Cores,
				figures.FormatLatency(p.PerCommand()), figures.FormatLatency(sampled)),
		},
		align:  "|---|--:|",
		Header: []string{"part of the service", "share of its CPU"},
	}
	for _, part := range p.Parts {
		s.Rows = append(s.Rows, []string{part.Name, fmt.Sprintf("%.0f%%", part.Share*100)})
	}
	return s
}
