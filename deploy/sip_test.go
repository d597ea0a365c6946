package deploy_test

import (
	"net"
	"strconv"
	"testing"
)

// sipPortName is the container port SIP_ADDR listens on.
const sipPortName = "sip"

// checkSIP checks that kiosks reach every replica over SIP2 when SIP_ADDR is set: it listens on
// every interface, and the Service exposes its port by the container port's name, on the same
// number, so that kiosks set up with one address reach any replica. It returns the port (0 when
// SIP_ADDR is unset: no kiosk listener).
func checkSIP(t *testing.T, m *manifests, env envMap, vars map[string]string) int {
	t.Helper()
	addr := env.valueOr("SIP_ADDR", vars)
	if addr == "" {
		return 0
	}
	host, portText, err := net.SplitHostPort(addr)
	port, perr := strconv.Atoi(portText)
	if err != nil || perr != nil || port <= 0 || port > 65535 {
		t.Errorf("SIP_ADDR %q is not host:port with a port number", addr)
		return 0
	}
	if host != "" && host != "0.0.0.0" && host != "::" {
		t.Errorf("SIP_ADDR %q listens on %s only; kiosks reach each pod through the Service: want :%d", addr, host, port)
	}
	exposed := false
	for _, svc := range m.services {
		for _, p := range svc.Spec.Ports {
			if p.TargetPort.String() == sipPortName && p.Port == int32(port) {
				exposed = true
			}
		}
	}
	if !exposed {
		t.Errorf("no Service exposes the container port %q on %d: kiosks can't reach SIP_ADDR", sipPortName, port)
	}
	return port
}
