package deploy_test

import (
	"net"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const (
	metricsPortName = "metrics" // the container port METRICS_ADDR listens on
	metricsPath     = "/metrics"

	// The annotations of the common Prometheus scrape configuration for pods
	// (kubernetes_sd_configs, role: pod), which deploy/grafana/README.md points at.
	scrapeAnnotation = "prometheus.io/scrape"
	portAnnotation   = "prometheus.io/port"
	pathAnnotation   = "prometheus.io/path"
)

// checkMetrics checks that Prometheus finds /metrics where the service serves it: METRICS_ADDR
// listens on every interface (Prometheus scrapes each pod by its IP) on a port of its own, the
// container port named metrics, which the pod's annotations name; and that the Service, which is
// the API's, doesn't lead there. It returns the port (0 when there is none).
func checkMetrics(t *testing.T, m *manifests, pod *corev1.PodTemplateSpec, c *corev1.Container, env envMap, vars map[string]string) int {
	t.Helper()
	addr := env.valueOr("METRICS_ADDR", vars)
	if addr == "" {
		t.Errorf("METRICS_ADDR is unset: the service serves no /metrics (it is not on the API)")
		return 0
	}
	host, portText, err := net.SplitHostPort(addr)
	port, perr := strconv.Atoi(portText)
	if err != nil || perr != nil || port <= 0 || port > 65535 {
		t.Errorf("METRICS_ADDR %q is not host:port with a port number", addr)
		return 0
	}
	if host != "" && host != "0.0.0.0" && host != "::" {
		t.Errorf("METRICS_ADDR %q listens on %s only; Prometheus scrapes the pod's IP: want :%d", addr, host, port)
	}
	if api := env.valueOr("HTTP_ADDR", vars); api == addr || api == ":"+portText {
		t.Errorf("METRICS_ADDR %q is HTTP_ADDR's address: /metrics needs a listener of its own", addr)
	}
	if got := containerPort(c, intstr.FromString(metricsPortName)); got != port {
		t.Errorf("container port %q is %d, want METRICS_ADDR's %d", metricsPortName, got, port)
	}

	a := pod.Annotations
	if a[scrapeAnnotation] != "true" {
		t.Errorf("pod annotation %s = %q, want \"true\"", scrapeAnnotation, a[scrapeAnnotation])
	}
	if a[portAnnotation] != strconv.Itoa(port) {
		t.Errorf("pod annotation %s = %q, want METRICS_ADDR's port %d", portAnnotation, a[portAnnotation], port)
	}
	if a[pathAnnotation] != metricsPath {
		t.Errorf("pod annotation %s = %q, want %s", pathAnnotation, a[pathAnnotation], metricsPath)
	}

	// What /metrics shows (routes, leases, lag) is for the people who run the service.
	for _, svc := range m.services {
		if len(svc.Spec.Selector) == 0 || !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
			continue
		}
		for _, p := range svc.Spec.Ports {
			target := p.TargetPort
			if target == (intstr.IntOrString{}) {
				target = intstr.FromInt32(p.Port)
			}
			if containerPort(c, target) == port {
				t.Errorf("Service %s port %d leads to the metrics port: /metrics is not for the API's callers", svc.Name, p.Port)
			}
		}
	}
	return port
}
