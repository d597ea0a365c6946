package eventstore

import "maps"

// CopySnapshots gives dst the snapshots src keeps, as they are, whatever dst's log holds: what
// a restore of an older copy of the log beside newer snapshots would leave.
func CopySnapshots(dst, src *Memory) {
	src.mu.RLock()
	snapshots := maps.Clone(src.snapshots)
	src.mu.RUnlock()
	dst.mu.Lock()
	dst.snapshots = snapshots
	dst.mu.Unlock()
}
