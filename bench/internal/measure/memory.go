package measure

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// MemoryResult is the service process's memory, from /proc/<pid>/status.
type MemoryResult struct {
	// RSSAfterLoad is VmRSS right after the throughput cells and the outbox's load.
	RSSAfterLoad int64 // bytes
	// Peak is VmHWM, the highest resident set size, at the end of the run.
	Peak int64 // bytes
}

// ProcStatus reads fields given in kB from /proc/<pid>/status, in bytes.
func ProcStatus(pid int, names ...string) (map[string]int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, fmt.Errorf("the service's memory: %w", err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	out := map[string]int64{}
	for line := range strings.Lines(string(b)) {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || !want[name] {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return nil, fmt.Errorf("the service's memory: unexpected %q", strings.TrimSpace(line))
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("the service's memory: %q: %w", strings.TrimSpace(line), err)
		}
		out[name] = kb * 1024
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, fmt.Errorf("the service's memory: no %s in /proc/%d/status", n, pid)
		}
	}
	return out, nil
}
