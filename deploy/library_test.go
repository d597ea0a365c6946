package deploy_test

import (
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// libraryApp is what checkLibrary found, for the checks specific to base or overlay.
type libraryApp struct {
	secretRef string // the name of the Secret the Deployment's containers read
	authRef   string // the name of the ConfigMap the library container reads sign-in from
	env       envMap // the library container's environment
}

// checkLibrary checks the service's Deployment, Service and PodDisruptionBudget.
func checkLibrary(t *testing.T, m *manifests, vars map[string]string, wantImage string) libraryApp {
	t.Helper()
	var app libraryApp
	d := m.deployments[appName]
	if d == nil {
		t.Fatalf("%s renders no Deployment %q (it has %v)", m.dir, appName, keys(m.deployments))
	}
	pod := &d.Spec.Template.Spec
	if d.Spec.Replicas == nil || *d.Spec.Replicas != wantReplicas {
		t.Errorf("Deployment replicas = %v, want %d", ptrString(d.Spec.Replicas), wantReplicas)
	}
	podLabels := labels.Set(d.Spec.Template.Labels)
	if sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err != nil || sel.Empty() || !sel.Matches(podLabels) {
		t.Errorf("the Deployment's selector %v doesn't select its own pods %v (%v)", d.Spec.Selector, podLabels, err)
	}

	// The containers: the service, and the migration before it, from one image.
	if len(pod.Containers) != 1 || pod.Containers[0].Name != appName {
		t.Fatalf("the Deployment's containers are %v, want one named %q", containerNames(pod.Containers), appName)
	}
	c := &pod.Containers[0]
	if c.Image != wantImage {
		t.Errorf("container image = %q, want %q", c.Image, wantImage)
	}
	if len(c.Command) != 0 || len(c.Args) != 0 && !slices.Equal(c.Args, []string{"serve"}) {
		t.Errorf("container command %q args %q: want the image's entrypoint with no args or [serve]", c.Command, c.Args)
	}
	if len(pod.InitContainers) != 1 || pod.InitContainers[0].Name != migrateName {
		t.Fatalf("the Deployment's init containers are %v, want one named %q", containerNames(pod.InitContainers), migrateName)
	}
	ic := &pod.InitContainers[0]
	if ic.Image != c.Image || len(ic.Command) != 0 || !slices.Equal(ic.Args, []string{"migrate", "up"}) {
		t.Errorf("init container: image %q command %q args %q, want the service's image %q with args [migrate up]", ic.Image, ic.Command, ic.Args, c.Image)
	}

	app.authRef = checkSignIn(t, m, c, ic)
	app.env = checkLibraryEnv(t, m, vars, c, ic, app.authRef)
	env := app.env
	for _, ef := range c.EnvFrom {
		if ef.SecretRef != nil {
			app.secretRef = ef.SecretRef.Name
		}
	}
	for _, name := range secretVariables {
		if !env.fromSecret(name, app.secretRef) {
			t.Errorf("%s does not come from the Secret %q", name, app.secretRef)
		}
	}
	replica, ok := env["REPLICA_ID"]
	if !ok || replica.fieldPath != "metadata.name" {
		t.Errorf("REPLICA_ID = %+v, want the pod's name (fieldRef metadata.name)", replica)
	}
	if v, ok := env["MIGRATE_ON_START"]; !ok || v.value != "false" {
		t.Errorf("MIGRATE_ON_START = %+v, want false: the init container migrates", v)
	}

	// The ports: the one HTTP_ADDR listens on, named http, for the API and the probes; the one
	// METRICS_ADDR listens on, named metrics, for Prometheus.
	addr := env.valueOr("HTTP_ADDR", vars)
	_, portText, err := net.SplitHostPort(addr)
	listenPort, _ := strconv.Atoi(portText)
	if err != nil || listenPort != wantHTTPPort {
		t.Errorf("HTTP_ADDR %q does not listen on %d", addr, wantHTTPPort)
	}
	metricsPort := checkMetrics(t, m, &d.Spec.Template, c, env, vars)
	wantPorts := map[string]int32{httpPortName: int32(listenPort), metricsPortName: int32(metricsPort)}
	if sipPort := checkSIP(t, m, env, vars); sipPort > 0 {
		wantPorts[sipPortName] = int32(sipPort)
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
		if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
			t.Errorf("container port %s is %s, want TCP", p.Name, p.Protocol)
		}
	}
	if len(c.Ports) != len(ports) || !maps.Equal(ports, wantPorts) {
		t.Errorf("container ports %+v, want %v (HTTP_ADDR %q, METRICS_ADDR %q)", c.Ports, wantPorts, addr, env.valueOr("METRICS_ADDR", vars))
	}

	// The probes.
	checkProbe(t, "readinessProbe", c.ReadinessProbe, c, readinessPath, listenPort)
	checkProbe(t, "livenessProbe", c.LivenessProbe, c, livenessPath, listenPort)
	if c.StartupProbe != nil {
		checkProbe(t, "startupProbe", c.StartupProbe, c, livenessPath, listenPort)
	}

	// Security and resources.
	checkPodSecurity(t, "Deployment/"+appName, pod, wantUID)
	if pod.EnableServiceLinks == nil || *pod.EnableServiceLinks {
		t.Errorf("enableServiceLinks should be false: service links add variables (LIBRARY_PORT, ...) the service doesn't read")
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Errorf("automountServiceAccountToken should be false: the service doesn't use the Kubernetes API")
	}
	for _, ctr := range []*corev1.Container{ic, c} {
		checkResources(t, ctr)
	}
	checkMemoryLimit(t, c, env)

	checkShutdown(t, pod, c, env, vars)
	checkLibraryService(t, m, d)
	return app
}

// checkLibraryEnv checks the containers' environments: every variable they set is one the
// service reads, secrets come from the Secret, and the migration sees the service's
// configuration, but for the sign-in settings (from the ConfigMap authRef), which it doesn't
// read. It returns the service's.
func checkLibraryEnv(t *testing.T, m *manifests, vars map[string]string, c, ic *corev1.Container, authRef string) envMap {
	t.Helper()
	env := m.containerEnv(t, c, baseExternal)
	initEnv := m.containerEnv(t, ic, baseExternal)
	reported := map[string]bool{}
	for _, e := range []envMap{initEnv, env} {
		for _, name := range keys(e) {
			v := e[name]
			if reported[v.from+" "+name] {
				continue // both containers read the same ConfigMap
			}
			reported[v.from+" "+name] = true
			if _, ok := vars[name]; !ok {
				t.Errorf("%s sets %s, which the service doesn't read (docs/configuration.md)", v.from, name)
			}
			if slices.Contains(secretVariables, name) && !strings.HasPrefix(v.from, "Secret ") {
				t.Errorf("%s sets %s, which may hold a password: it belongs in the Secret", v.from, name)
			}
		}
	}
	serviceButSignIn := envMap{}
	for name, v := range env {
		if authRef == "" || v.from != "ConfigMap "+authRef {
			serviceButSignIn[name] = v
		}
	}
	if !sameEnv(serviceButSignIn, initEnv) {
		t.Errorf("the init container's environment differs from the service's, sign-in aside:\n  init:    %v\n  service: %v", envNames(initEnv), envNames(serviceButSignIn))
	}
	return env
}

// checkShutdown: the kubelet waits terminationGracePeriodSeconds after the preStop hook starts;
// the service needs a preStop sleep (if any) + SHUTDOWN_DELAY + SHUTDOWN_TIMEOUT.
func checkShutdown(t *testing.T, pod *corev1.PodSpec, c *corev1.Container, env envMap, vars map[string]string) {
	t.Helper()
	delay := env.durationOr(t, "SHUTDOWN_DELAY", vars)
	timeout := env.durationOr(t, "SHUTDOWN_TIMEOUT", vars)
	var preStop time.Duration
	if c.Lifecycle != nil && c.Lifecycle.PreStop != nil {
		h := c.Lifecycle.PreStop
		if h.Sleep == nil || h.Exec != nil || h.HTTPGet != nil || h.TCPSocket != nil {
			t.Errorf("preStop %+v: the image has no shell; only the sleep action can work", h)
		} else {
			preStop = time.Duration(h.Sleep.Seconds) * time.Second
		}
	}
	grace := 30 * time.Second // the API's default
	if pod.TerminationGracePeriodSeconds != nil {
		grace = time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
	}
	if need := preStop + delay + timeout; grace <= need {
		t.Errorf("terminationGracePeriodSeconds %v is not above preStop %v + SHUTDOWN_DELAY %v + SHUTDOWN_TIMEOUT %v = %v", grace, preStop, delay, timeout, need)
	}
	if delay+preStop == 0 {
		t.Errorf("neither SHUTDOWN_DELAY nor a preStop sleep: pods stop taking connections before the endpoints are updated")
	}
}

// checkLibraryService checks the Service (port 80 to the named port http, and the kiosks' port
// to the named port sip, and only those, selecting the Deployment's pods) and the PodDisruptionBudget (one pod at a time, of these
// pods only).
func checkLibraryService(t *testing.T, m *manifests, d *appsv1.Deployment) {
	t.Helper()
	podLabels := labels.Set(d.Spec.Template.Labels)
	svc := m.services[appName]
	if svc == nil {
		t.Fatalf("no Service %q", appName)
	}
	http := slices.IndexFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return p.TargetPort == intstr.FromString(httpPortName) })
	others := slices.DeleteFunc(slices.Clone(svc.Spec.Ports), func(p corev1.ServicePort) bool {
		return p.TargetPort == intstr.FromString(httpPortName) || p.TargetPort == intstr.FromString(sipPortName)
	})
	if http < 0 || svc.Spec.Ports[http].Port != 80 || len(others) > 0 {
		t.Errorf("Service ports %+v, want 80 -> %q and the kiosks' port -> %q only", svc.Spec.Ports, httpPortName, sipPortName)
	}
	if sel := labels.SelectorFromSet(svc.Spec.Selector); len(svc.Spec.Selector) == 0 || !sel.Matches(podLabels) {
		t.Errorf("Service selector %v doesn't select the Deployment's pods %v", svc.Spec.Selector, podLabels)
	}

	pdb := m.pdbs[appName]
	if pdb == nil {
		t.Fatalf("no PodDisruptionBudget %q", appName)
	}
	if pdb.Spec.MinAvailable == nil || *pdb.Spec.MinAvailable != intstr.FromInt32(1) || pdb.Spec.MaxUnavailable != nil {
		t.Errorf("PodDisruptionBudget minAvailable %v maxUnavailable %v, want minAvailable 1", pdb.Spec.MinAvailable, pdb.Spec.MaxUnavailable)
	}
	if sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector); err != nil || sel.Empty() || !sel.Matches(podLabels) {
		t.Errorf("PodDisruptionBudget selector %v doesn't select the Deployment's pods %v", pdb.Spec.Selector, podLabels)
	}
	for _, other := range m.podTemplates() {
		if other.where == "Deployment/"+appName {
			continue
		}
		if sel, _ := metav1.LabelSelectorAsSelector(pdb.Spec.Selector); sel.Matches(labels.Set(other.spec.Labels)) {
			t.Errorf("PodDisruptionBudget %q also selects the pods of %s", appName, other.where)
		}
	}
}

func checkProbe(t *testing.T, name string, p *corev1.Probe, c *corev1.Container, wantPath string, wantPort int) {
	t.Helper()
	if p == nil || p.HTTPGet == nil {
		t.Errorf("%s: want an HTTP GET of %s", name, wantPath)
		return
	}
	if p.HTTPGet.Path != wantPath {
		t.Errorf("%s path = %q, want %q", name, p.HTTPGet.Path, wantPath)
	}
	if port := containerPort(c, p.HTTPGet.Port); port != wantPort {
		t.Errorf("%s port %q is container port %d, want %d", name, p.HTTPGet.Port.String(), port, wantPort)
	}
	if p.HTTPGet.Scheme != "" && p.HTTPGet.Scheme != corev1.URISchemeHTTP {
		t.Errorf("%s scheme = %s, want HTTP", name, p.HTTPGet.Scheme)
	}
}
