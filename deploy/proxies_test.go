package deploy_test

import (
	"net/netip"
	"strconv"
	"strings"
	"testing"
)

// checkTrustedProxies checks how the base tells clients apart behind the cluster's ingress:
// TRUSTED_PROXIES lists the private networks that pod networks use, so that the ingress
// controller's X-Forwarded-For is read, and no public or loopback address, which would let a
// client on the internet, or any process in the pod, pick its own address; and
// RATE_LIMIT_EXEMPT_LOOPBACK stays off.
func checkTrustedProxies(t *testing.T, env envMap) {
	t.Helper()
	v, ok := env["TRUSTED_PROXIES"]
	if !ok || !v.known || strings.TrimSpace(v.value) == "" {
		t.Errorf("TRUSTED_PROXIES = %+v: the base serves behind an ingress, whose clients would all count as its address", v)
		return
	}
	var prefixes []netip.Prefix
	for entry := range strings.SplitSeq(v.value, ",") {
		entry = strings.TrimSpace(entry)
		p, err := netip.ParsePrefix(entry)
		if err != nil {
			a, aerr := netip.ParseAddr(entry)
			if aerr != nil {
				t.Errorf("TRUSTED_PROXIES entry %q is neither a prefix nor an address", entry)
				continue
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		if !p.Addr().IsPrivate() || !p.Masked().Addr().IsPrivate() || p.Bits() < privateBits(p.Addr()) {
			t.Errorf("TRUSTED_PROXIES entry %s reaches past the private ranges: a client there could name its own address", entry)
		}
		prefixes = append(prefixes, p.Masked())
	}
	covered := func(addr string) bool {
		a := netip.MustParseAddr(addr)
		for _, p := range prefixes {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	// Ingress controllers' pod addresses in common clusters: kubeadm with flannel, k3s, Calico,
	// a VPC's, an IPv6 (unique local) pod network.
	for _, pod := range []string{"10.244.1.7", "10.42.0.9", "192.168.12.3", "172.20.0.5", "fd00:10:244::5"} {
		if !covered(pod) {
			t.Errorf("TRUSTED_PROXIES %q does not cover the pod address %s", v.value, pod)
		}
	}
	for _, outside := range []string{"203.0.113.5", "8.8.8.8", "100.64.0.1", "2001:db8::1", "127.0.0.1", "::1"} {
		if covered(outside) {
			t.Errorf("TRUSTED_PROXIES %q covers %s, which is no pod of the cluster", v.value, outside)
		}
	}
	if e, ok := env["RATE_LIMIT_EXEMPT_LOOPBACK"]; ok {
		if b, err := strconv.ParseBool(e.value); err != nil || b {
			t.Errorf("RATE_LIMIT_EXEMPT_LOOPBACK = %q (%s): the base counts loopback (a sidecar forwards from it)", e.value, e.from)
		}
	}
}

// privateBits is the length of the widest private range that holds a: 8 for 10/8, 12 for
// 172.16/12, 16 for 192.168/16, 7 for fc00::/7.
func privateBits(a netip.Addr) int {
	switch {
	case a.Is6():
		return 7
	case netip.MustParsePrefix("10.0.0.0/8").Contains(a):
		return 8
	case netip.MustParsePrefix("172.16.0.0/12").Contains(a):
		return 12
	}
	return 16
}
