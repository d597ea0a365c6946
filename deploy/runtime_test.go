package deploy_test

import (
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// checkMemoryLimit: a GOMEMLIMIT the manifests set is one Go's runtime reads, and below the
// service container's memory limit, so that the collector works harder before the kubelet
// kills the container, not after.
func checkMemoryLimit(t *testing.T, c *corev1.Container, env envMap) {
	t.Helper()
	v, ok := env["GOMEMLIMIT"]
	if !ok {
		return
	}
	soft, err := parseMemoryLimit(v.value)
	if err != nil {
		t.Errorf("%s sets GOMEMLIMIT=%q, which Go's runtime doesn't read: %v", v.from, v.value, err)
		return
	}
	limit, ok := c.Resources.Limits[corev1.ResourceMemory]
	if !ok {
		t.Errorf("%s sets GOMEMLIMIT=%q, but the %s container has no memory limit to stay under", v.from, v.value, c.Name)
		return
	}
	if soft >= limit.Value() {
		t.Errorf("GOMEMLIMIT=%q (%d bytes) is not below the %s container's memory limit %s (%d bytes)", v.value, soft, c.Name, limit.String(), limit.Value())
	}
}

// parseMemoryLimit reads a GOMEMLIMIT as Go's runtime does: bytes, with an optional unit (B,
// KiB, MiB, GiB, TiB).
func parseMemoryLimit(s string) (int64, error) {
	units := []struct {
		suffix string
		shift  uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}
	shift := uint(0)
	for _, u := range units {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			s, shift = n, u.shift
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, err
	}
	return n << shift, nil
}
