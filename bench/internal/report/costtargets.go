package report

import (
	"fmt"
	"time"

	"library/bench/internal/figures"
	"library/bench/internal/workload"
)

// The targets on what a command costs: against PostgreSQL's own read-then-append at
// concurrency 1 and its prepared single-row appends at 32, its latency at 1, and the service's
// CPU per command, from process_cpu_seconds_total read around each commands cell.

// CommandCostTargets adds the targets on a command's cost.
func (r Report) CommandCostTargets(t *TargetRows) {
	cmds, okC := r.cellAt("commands", 1)
	base, okB := r.cellAt("baseline", 1)
	target, as := "commands ≥ 0.9 × baseline (read, then append, prepared) at concurrency 1", "ops/s at concurrency 1"
	if okC && okB && base.Throughput() > 0 {
		ratio := cmds.Throughput() / base.Throughput()
		t.add(target, as, fmt.Sprintf("%.2f × (%.0f, baseline %.0f)", ratio, cmds.Throughput(), base.Throughput()), ratio >= 0.9)
	} else {
		t.missing(target, as+" (not in BENCH_CONCURRENCY)")
	}
	if okC {
		t.add("commands p50 ≤ 0.5 ms at concurrency 1", "p50 of commands at concurrency 1", figures.FormatLatency(cmds.P50), cmds.P50 <= 500*time.Microsecond)
	}
	top, okT := r.cellAt("commands", 32)
	prepared, okP := r.cellAt(workload.AppendPrepared, 32)
	target, as = "commands ≥ 0.8 × "+workload.AppendPrepared+" at concurrency 32", "ops/s at concurrency 32"
	if okT && okP && prepared.Throughput() > 0 {
		ratio := top.Throughput() / prepared.Throughput()
		t.add(target, as, fmt.Sprintf("%.2f × (%.0f, limit %.0f)", ratio, top.Throughput(), prepared.Throughput()), ratio >= 0.8)
	} else {
		t.missing(target, as+" (not in BENCH_CONCURRENCY)")
	}
	for _, limit := range []struct {
		concurrency int
		most        time.Duration
	}{{1, 200 * time.Microsecond}, {32, 110 * time.Microsecond}} {
		target := fmt.Sprintf("service CPU per command ≤ %s at concurrency %d", figures.FormatLatency(limit.most), limit.concurrency)
		as := "process_cpu_seconds_total over the commands cell, over its commands"
		per, ok := r.cpuPerCommand(limit.concurrency)
		if !ok {
			t.missing(target, as)
			continue
		}
		t.add(target, as, figures.FormatLatency(per), per <= limit.most)
	}
}

// cpuPerCommand is the service's CPU over the commands cell at concurrency c, over its
// commands; false when that cell was not measured.
func (r Report) cpuPerCommand(c int) (time.Duration, bool) {
	cmds, ok := r.cellAt("commands", c)
	if !ok || cmds.Ops == 0 {
		return 0, false
	}
	for _, cc := range r.Cache.Cells {
		if cc.Concurrency == c && cc.CPU > 0 {
			return time.Duration(cc.CPU / float64(cmds.Ops) * float64(time.Second)), true
		}
	}
	return 0, false
}
