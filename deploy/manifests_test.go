package deploy_test

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

const (
	entryDir      = "k8s" // `kubectl apply -k deploy/k8s`: the base, re-exported
	baseDir       = "k8s/base"
	devDir        = "k8s/dev"
	secretExample = "k8s/secret.example.yaml"
	readmePath    = "../README.md"

	// The names the manifests give the service's objects.
	appName       = "library" // Deployment, Service, PodDisruptionBudget, main container
	appSecret     = "library" // the Secret the base expects and the dev overlay generates
	migrateName   = "migrate" // the init container
	httpPortName  = "http"
	wantReplicas  = 2
	wantUID       = 65532 // nonroot in the distroless image; the Dockerfile's USER
	wantHTTPPort  = 8080
	readinessPath = "/readyz"
	livenessPath  = "/healthz"
)

// secretVariables may hold passwords or tokens: they belong in a Secret, never in a ConfigMap
// or a literal env value.
var secretVariables = []string{"DATABASE_URL", "SMTP_URL", "ADMIN_TOKEN"}

func TestBase(t *testing.T) {
	vars := readmeVariables(t)
	m := render(t, baseDir)

	// The base expects the Secret rather than carrying one: its values differ per environment.
	if len(m.secrets) != 0 {
		t.Errorf("the base renders Secrets %v; it should only reference %q, provided per environment", keys(m.secrets), appSecret)
	}
	checkReferences(t, m, map[string]bool{appSecret: true})
	checkServices(t, m)
	app := checkLibrary(t, m, vars, "library")
	if app.secretRef != appSecret {
		t.Errorf("the Deployment reads its Secret %q, want %q (secret.example.yaml)", app.secretRef, appSecret)
	}
}

func TestDev(t *testing.T) {
	vars := readmeVariables(t)
	m := render(t, devDir)

	checkReferences(t, m, nil) // everything the dev overlay refers to is in it
	checkServices(t, m)
	app := checkLibrary(t, m, vars, "library:dev")
	for _, pod := range m.podTemplates() {
		checkPodSecurity(t, pod.where, &pod.spec.Spec, -1)
	}

	// All in one namespace, which the overlay creates.
	if len(m.namespaces) != 1 {
		t.Fatalf("the dev overlay renders namespaces %v, want one", keys(m.namespaces))
	}
	for _, o := range m.all {
		if _, isNamespace := o.(*corev1.Namespace); isNamespace {
			continue
		}
		if ns := o.GetNamespace(); ns != keys(m.namespaces)[0] {
			t.Errorf("%s is in namespace %q, want %q", o.GetName(), ns, keys(m.namespaces)[0])
		}
	}

	// The generated Secret: the keys the service reads, pointing at the overlay's services.
	secret := m.secrets[app.secretRef]
	if secret == nil {
		t.Fatalf("the Deployment's Secret %q is not rendered by the dev overlay", app.secretRef)
	}
	if !strings.HasPrefix(secret.Name, appSecret+"-") {
		t.Errorf("the Deployment reads Secret %q, want the generated %q-<hash>", secret.Name, appSecret)
	}
	for _, name := range secretVariables {
		if _, ok := secretValue(secret, name); !ok {
			t.Errorf("the dev Secret lacks %s", name)
		}
	}

	dbURL, _ := secretValue(secret, "DATABASE_URL")
	db, err := url.Parse(dbURL)
	if err != nil || (db.Scheme != "postgres" && db.Scheme != "postgresql") {
		t.Fatalf("DATABASE_URL %q is not a postgres:// URL", dbURL)
	}
	pg := m.serviceTarget(t, db.Hostname(), db.Port())
	if pg != nil {
		c := pg.container
		if !strings.HasPrefix(c.Image, "postgres:") {
			t.Errorf("DATABASE_URL points at %s, whose image is %q, not PostgreSQL", db.Host, c.Image)
		}
		env := m.literalEnv(t, c)
		if want := strings.TrimPrefix(db.Path, "/"); env["POSTGRES_DB"] != want {
			t.Errorf("DATABASE_URL names database %q; PostgreSQL creates POSTGRES_DB=%q", want, env["POSTGRES_DB"])
		}
		if pw, _ := db.User.Password(); db.User == nil || env["POSTGRES_PASSWORD"] != pw || db.User.Username() != "postgres" {
			t.Errorf("DATABASE_URL's user and password are not the PostgreSQL superuser's (postgres, POSTGRES_PASSWORD)")
		}
	}

	smtpURL, _ := secretValue(secret, "SMTP_URL")
	smtp, err := url.Parse(smtpURL)
	if err != nil || smtp.Scheme != "smtp" || smtp.Query().Get("tls") != "none" {
		t.Fatalf("SMTP_URL %q is not smtp://host:port?tls=none", smtpURL)
	}
	mp := m.serviceTarget(t, smtp.Hostname(), smtp.Port())
	if mp != nil && !strings.HasPrefix(mp.container.Image, "axllent/mailpit:") {
		t.Errorf("SMTP_URL points at %s, whose image is %q, not Mailpit", smtp.Host, mp.container.Image)
	}
}

// TestEntry checks that `kubectl apply -k deploy/k8s` deploys exactly the base.
func TestEntry(t *testing.T) {
	entry, base := render(t, entryDir), render(t, baseDir)
	if entry.yaml != base.yaml {
		t.Errorf("%s renders differently from %s:\n%s\n---- vs ----\n%s", entryDir, baseDir, entry.yaml, base.yaml)
	}
}

// TestSecretExample checks the Secret operators copy: the keys the service reads as secrets,
// and nothing else.
func TestSecretExample(t *testing.T) {
	vars := readmeVariables(t)
	doc, err := os.ReadFile(secretExample)
	if err != nil {
		t.Fatal(err)
	}
	var s corev1.Secret
	if err := strictDecode(doc, &s); err != nil {
		t.Fatalf("%s: %v", secretExample, err)
	}
	if s.APIVersion != "v1" || s.Kind != "Secret" || s.Name != appSecret {
		t.Errorf("%s is %s %s %q, want v1 Secret %q", secretExample, s.APIVersion, s.Kind, s.Name, appSecret)
	}
	var got []string
	for k := range s.StringData {
		got = append(got, k)
		if _, ok := vars[k]; !ok {
			t.Errorf("%s sets %s, which the service doesn't read (README, Configuration)", secretExample, k)
		}
	}
	for k := range s.Data {
		got = append(got, k)
	}
	sort.Strings(got)
	if want := slices.Sorted(slices.Values(secretVariables)); !slices.Equal(got, want) {
		t.Errorf("%s has keys %v, want %v", secretExample, got, want)
	}
}

// libraryApp is what checkLibrary found, for the checks specific to base or overlay.
type libraryApp struct {
	secretRef string // the name of the Secret the Deployment's containers read
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
	if len(c.Command) != 0 || !(len(c.Args) == 0 || slices.Equal(c.Args, []string{"serve"})) {
		t.Errorf("container command %q args %q: want the image's entrypoint with no args or [serve]", c.Command, c.Args)
	}
	if len(pod.InitContainers) != 1 || pod.InitContainers[0].Name != migrateName {
		t.Fatalf("the Deployment's init containers are %v, want one named %q", containerNames(pod.InitContainers), migrateName)
	}
	ic := &pod.InitContainers[0]
	if ic.Image != c.Image || len(ic.Command) != 0 || !slices.Equal(ic.Args, []string{"migrate", "up"}) {
		t.Errorf("init container: image %q command %q args %q, want the service's image %q with args [migrate up]", ic.Image, ic.Command, ic.Args, c.Image)
	}

	// Every variable they set is one the service reads, secrets come from the Secret, and
	// both containers see the same configuration.
	env := m.containerEnv(t, c, map[string]bool{appSecret: true})
	initEnv := m.containerEnv(t, ic, map[string]bool{appSecret: true})
	reported := map[string]bool{}
	for _, e := range []envMap{initEnv, env} {
		for _, name := range keys(e) {
			v := e[name]
			if reported[v.from+" "+name] {
				continue // both containers read the same ConfigMap
			}
			reported[v.from+" "+name] = true
			if _, ok := vars[name]; !ok {
				t.Errorf("%s sets %s, which the service doesn't read (README, Configuration)", v.from, name)
			}
			if slices.Contains(secretVariables, name) && !strings.HasPrefix(v.from, "Secret ") {
				t.Errorf("%s sets %s, which may hold a password: it belongs in the Secret", v.from, name)
			}
		}
	}
	if !sameEnv(env, initEnv) {
		t.Errorf("the init container's environment differs from the service's:\n  init:    %v\n  service: %v", envNames(initEnv), envNames(env))
	}
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

	// The port: the one HTTP_ADDR listens on, named http.
	addr := env.valueOr("HTTP_ADDR", vars)
	_, portText, err := net.SplitHostPort(addr)
	listenPort, _ := strconv.Atoi(portText)
	if err != nil || listenPort != wantHTTPPort {
		t.Errorf("HTTP_ADDR %q does not listen on %d", addr, wantHTTPPort)
	}
	if len(c.Ports) != 1 || c.Ports[0].Name != httpPortName || c.Ports[0].ContainerPort != int32(listenPort) || (c.Ports[0].Protocol != "" && c.Ports[0].Protocol != corev1.ProtocolTCP) {
		t.Errorf("container ports %+v, want one TCP port %q on %d (HTTP_ADDR %q)", c.Ports, httpPortName, listenPort, addr)
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

	// Shutdown: the kubelet waits terminationGracePeriodSeconds after the preStop hook
	// starts; the service needs a preStop sleep (if any) + SHUTDOWN_DELAY + SHUTDOWN_TIMEOUT.
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

	// The Service: port 80 to the named port, selecting these pods.
	svc := m.services[appName]
	if svc == nil {
		t.Fatalf("no Service %q", appName)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 80 || svc.Spec.Ports[0].TargetPort != intstr.FromString(httpPortName) {
		t.Errorf("Service ports %+v, want 80 -> %q", svc.Spec.Ports, httpPortName)
	}
	if sel := labels.SelectorFromSet(svc.Spec.Selector); len(svc.Spec.Selector) == 0 || !sel.Matches(podLabels) {
		t.Errorf("Service selector %v doesn't select the Deployment's pods %v", svc.Spec.Selector, podLabels)
	}

	// The PodDisruptionBudget: one pod at a time, of these pods.
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
	return app
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

// checkPodSecurity checks the hardening every pod of these manifests has; uid is the user the
// pod must run as, or -1 for any user but root.
func checkPodSecurity(t *testing.T, where string, pod *corev1.PodSpec, uid int64) {
	t.Helper()
	psc := pod.SecurityContext
	if psc == nil {
		psc = &corev1.PodSecurityContext{}
	}
	for _, c := range slices.Concat(pod.InitContainers, pod.Containers) {
		sc := c.SecurityContext
		if sc == nil {
			sc = &corev1.SecurityContext{}
		}
		at := fmt.Sprintf("%s container %s", where, c.Name)
		nonRoot, user, seccomp := psc.RunAsNonRoot, psc.RunAsUser, psc.SeccompProfile
		if sc.RunAsNonRoot != nil {
			nonRoot = sc.RunAsNonRoot
		}
		if sc.RunAsUser != nil {
			user = sc.RunAsUser
		}
		if sc.SeccompProfile != nil {
			seccomp = sc.SeccompProfile
		}
		if nonRoot == nil || !*nonRoot {
			t.Errorf("%s: runAsNonRoot is not true", at)
		}
		switch {
		case user == nil && uid >= 0:
			t.Errorf("%s: runAsUser unset, want %d", at, uid)
		case user != nil && uid >= 0 && *user != uid:
			t.Errorf("%s: runAsUser = %d, want %d", at, *user, uid)
		case user != nil && *user == 0:
			t.Errorf("%s: runs as root", at)
		}
		if seccomp == nil || seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault {
			t.Errorf("%s: seccompProfile is not RuntimeDefault", at)
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			t.Errorf("%s: allowPrivilegeEscalation is not false", at)
		}
		if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			t.Errorf("%s: readOnlyRootFilesystem is not true", at)
		}
		if sc.Privileged != nil && *sc.Privileged {
			t.Errorf("%s: privileged", at)
		}
		if sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 {
			t.Errorf("%s: capabilities %+v, want drop [ALL] and none added", at, sc.Capabilities)
		}
	}
	if pod.HostNetwork || pod.HostPID || pod.HostIPC {
		t.Errorf("%s: shares a host namespace", where)
	}
}

func checkResources(t *testing.T, c *corev1.Container) {
	t.Helper()
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, okReq := c.Resources.Requests[r]
		lim, okLim := c.Resources.Limits[r]
		if !okReq || !okLim || req.IsZero() || lim.IsZero() {
			t.Errorf("container %s: %s request %v and limit %v, want both set", c.Name, r, req.String(), lim.String())
			continue
		}
		if req.Cmp(lim) > 0 {
			t.Errorf("container %s: %s request %v above its limit %v", c.Name, r, req.String(), lim.String())
		}
	}
}

// checkServices checks that every Service selects the pods of exactly one workload, and that
// each of its ports reaches a port of that workload's containers.
func checkServices(t *testing.T, m *manifests) {
	t.Helper()
	for _, svc := range m.services {
		if len(svc.Spec.Selector) == 0 {
			t.Errorf("Service %s has no selector", svc.Name)
			continue
		}
		var matched []podTemplate
		for _, pt := range m.podTemplates() {
			if labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pt.spec.Labels)) {
				matched = append(matched, pt)
			}
		}
		if len(matched) != 1 {
			t.Errorf("Service %s selects the pods of %d workloads, want 1", svc.Name, len(matched))
			continue
		}
		for _, p := range svc.Spec.Ports {
			target := p.TargetPort
			if target == (intstr.IntOrString{}) {
				target = intstr.FromInt32(p.Port)
			}
			found := false
			for i := range matched[0].spec.Spec.Containers {
				if containerPort(&matched[0].spec.Spec.Containers[i], target) > 0 {
					found = true
				}
			}
			if !found {
				t.Errorf("Service %s port %d: target %s is no container port of %s", svc.Name, p.Port, target.String(), matched[0].where)
			}
		}
	}
}

// checkReferences checks that every ConfigMap and Secret a pod refers to is rendered, or is
// one of external (Secrets provided outside the manifests), and that keys referred to exist.
func checkReferences(t *testing.T, m *manifests, external map[string]bool) {
	t.Helper()
	for _, pt := range m.podTemplates() {
		pod := &pt.spec.Spec
		for _, c := range slices.Concat(pod.InitContainers, pod.Containers) {
			m.containerEnv(t, &c, external) // fails on a missing object or key
		}
		for _, v := range pod.Volumes {
			if v.ConfigMap != nil && m.configMaps[v.ConfigMap.Name] == nil {
				t.Errorf("%s volume %s: no ConfigMap %q", pt.where, v.Name, v.ConfigMap.Name)
			}
			if v.Secret != nil && m.secrets[v.Secret.SecretName] == nil && !external[v.Secret.SecretName] {
				t.Errorf("%s volume %s: no Secret %q", pt.where, v.Name, v.Secret.SecretName)
			}
		}
	}
}

// containerPort resolves a port (number or name) of a container; 0 if it has no such port.
func containerPort(c *corev1.Container, port intstr.IntOrString) int {
	for _, p := range c.Ports {
		if (port.Type == intstr.String && p.Name == port.StrVal) || (port.Type == intstr.Int && p.ContainerPort == port.IntVal) {
			return int(p.ContainerPort)
		}
	}
	return 0
}

// --- rendering and strict decoding ---

// manifests is one kustomization, rendered and decoded into the Kubernetes API types.
type manifests struct {
	dir          string
	yaml         string // as kustomize prints it
	all          []metav1.Object
	deployments  map[string]*appsv1.Deployment
	statefulSets map[string]*appsv1.StatefulSet
	jobs         map[string]*batchv1.Job
	services     map[string]*corev1.Service
	configMaps   map[string]*corev1.ConfigMap
	secrets      map[string]*corev1.Secret
	pdbs         map[string]*policyv1.PodDisruptionBudget
	namespaces   map[string]*corev1.Namespace
}

// render builds a kustomization in process, as `kubectl kustomize dir` would, and decodes each
// object strictly: an unknown kind, an unknown or misspelt field, or a duplicate key fails.
func render(t *testing.T, dir string) *manifests {
	t.Helper()
	resMap, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	m := &manifests{
		dir:          dir,
		deployments:  map[string]*appsv1.Deployment{},
		statefulSets: map[string]*appsv1.StatefulSet{},
		jobs:         map[string]*batchv1.Job{},
		services:     map[string]*corev1.Service{},
		configMaps:   map[string]*corev1.ConfigMap{},
		secrets:      map[string]*corev1.Secret{},
		pdbs:         map[string]*policyv1.PodDisruptionBudget{},
		namespaces:   map[string]*corev1.Namespace{},
	}
	for _, r := range resMap.Resources() {
		doc, err := r.AsYAML()
		if err != nil {
			t.Fatalf("%s: %s/%s: %v", dir, r.GetKind(), r.GetName(), err)
		}
		if err := m.decode(doc); err != nil {
			t.Fatalf("%s: %s/%s: %v\n%s", dir, r.GetKind(), r.GetName(), err, doc)
		}
	}
	if len(m.all) == 0 {
		t.Fatalf("%s renders nothing", dir)
	}
	y, err := resMap.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	m.yaml = string(y)
	return m
}

func (m *manifests) decode(doc []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	switch tm.APIVersion + " " + tm.Kind {
	case "apps/v1 Deployment":
		return decodeInto(m, doc, m.deployments)
	case "apps/v1 StatefulSet":
		return decodeInto(m, doc, m.statefulSets)
	case "batch/v1 Job":
		return decodeInto(m, doc, m.jobs)
	case "v1 Service":
		return decodeInto(m, doc, m.services)
	case "v1 ConfigMap":
		return decodeInto(m, doc, m.configMaps)
	case "v1 Secret":
		return decodeInto(m, doc, m.secrets)
	case "policy/v1 PodDisruptionBudget":
		return decodeInto(m, doc, m.pdbs)
	case "v1 Namespace":
		return decodeInto(m, doc, m.namespaces)
	}
	return fmt.Errorf("unexpected kind %q %q: teach the test to decode and check it", tm.APIVersion, tm.Kind)
}

func decodeInto[T any, PT interface {
	*T
	metav1.Object
}](m *manifests, doc []byte, into map[string]PT) error {
	obj := PT(new(T))
	if err := strictDecode(doc, obj); err != nil {
		return err
	}
	if _, dup := into[obj.GetName()]; dup {
		return fmt.Errorf("rendered twice")
	}
	into[obj.GetName()] = obj
	m.all = append(m.all, obj)
	return nil
}

// strictDecode decodes YAML into an API type as strictly as the API server's strict field
// validation: no duplicate keys, no unknown fields, and field names matched case-sensitively
// (encoding/json, and so sigs.k8s.io/yaml's UnmarshalStrict, would take
// readOnlyRootFileSystem for readOnlyRootFilesystem).
func strictDecode(doc []byte, obj any) error {
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strictErrs, err := kjson.UnmarshalStrict(j, obj)
	if err != nil {
		return err
	}
	return errors.Join(strictErrs...)
}

type podTemplate struct {
	where string // Kind/name
	spec  *corev1.PodTemplateSpec
}

func (m *manifests) podTemplates() []podTemplate {
	var out []podTemplate
	for _, n := range keys(m.deployments) {
		out = append(out, podTemplate{"Deployment/" + n, &m.deployments[n].Spec.Template})
	}
	for _, n := range keys(m.statefulSets) {
		out = append(out, podTemplate{"StatefulSet/" + n, &m.statefulSets[n].Spec.Template})
	}
	for _, n := range keys(m.jobs) {
		out = append(out, podTemplate{"Job/" + n, &m.jobs[n].Spec.Template})
	}
	return out
}

// target is the container a Service port leads to.
type target struct {
	container *corev1.Container
	port      int
}

// serviceTarget resolves host:port, as a pod in the same namespace would dial it, to the
// container behind the Service; nil (and an error) if nothing answers there.
func (m *manifests) serviceTarget(t *testing.T, host, port string) *target {
	t.Helper()
	svc := m.services[host]
	if svc == nil {
		t.Errorf("%s:%s: no Service %q", host, port, host)
		return nil
	}
	for _, p := range svc.Spec.Ports {
		if strconv.Itoa(int(p.Port)) != port {
			continue
		}
		for _, pt := range m.podTemplates() {
			if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pt.spec.Labels)) {
				continue
			}
			for i := range pt.spec.Spec.Containers {
				c := &pt.spec.Spec.Containers[i]
				if n := containerPort(c, p.TargetPort); n > 0 {
					return &target{container: c, port: n}
				}
			}
		}
	}
	t.Errorf("%s:%s: Service %s has no port %s leading to a container", host, port, host, port)
	return nil
}

// envValue is one environment variable of a container: its value when the manifests say it,
// and where it comes from.
type envValue struct {
	value     string
	known     bool   // value is what the container will see
	fieldPath string // from the downward API
	from      string // "env of Deployment/x", "ConfigMap y", "Secret z"
}

type envMap map[string]envValue

// containerEnv resolves a container's environment as the kubelet would: envFrom in order, then
// env, which wins. Secrets in external are not rendered; their keys are unknown.
func (m *manifests) containerEnv(t *testing.T, c *corev1.Container, external map[string]bool) envMap {
	t.Helper()
	env := envMap{}
	for _, ef := range c.EnvFrom {
		if ef.Prefix != "" {
			t.Errorf("container %s: envFrom prefix %q renames the service's variables", c.Name, ef.Prefix)
		}
		switch {
		case ef.ConfigMapRef != nil:
			cm := m.configMaps[ef.ConfigMapRef.Name]
			if cm == nil {
				t.Errorf("container %s: no ConfigMap %q", c.Name, ef.ConfigMapRef.Name)
				continue
			}
			if len(cm.BinaryData) != 0 {
				t.Errorf("ConfigMap %s has binaryData, which envFrom skips", cm.Name)
			}
			for k, v := range cm.Data {
				env[k] = envValue{value: v, known: true, from: "ConfigMap " + cm.Name}
			}
		case ef.SecretRef != nil:
			s := m.secrets[ef.SecretRef.Name]
			if s == nil {
				if !external[ef.SecretRef.Name] {
					t.Errorf("container %s: no Secret %q", c.Name, ef.SecretRef.Name)
				}
				continue
			}
			for k := range s.Data {
				v, _ := secretValue(s, k)
				env[k] = envValue{value: v, known: true, from: "Secret " + s.Name}
			}
			for k, v := range s.StringData {
				env[k] = envValue{value: v, known: true, from: "Secret " + s.Name}
			}
		}
	}
	for _, e := range c.Env {
		v := envValue{value: e.Value, known: e.ValueFrom == nil, from: "env of container " + c.Name}
		if vf := e.ValueFrom; vf != nil {
			switch {
			case vf.FieldRef != nil:
				v.fieldPath = vf.FieldRef.FieldPath
			case vf.ConfigMapKeyRef != nil:
				cm := m.configMaps[vf.ConfigMapKeyRef.Name]
				if cm == nil {
					t.Errorf("container %s env %s: no ConfigMap %q", c.Name, e.Name, vf.ConfigMapKeyRef.Name)
				} else if val, ok := cm.Data[vf.ConfigMapKeyRef.Key]; !ok {
					t.Errorf("container %s env %s: ConfigMap %s has no key %q", c.Name, e.Name, cm.Name, vf.ConfigMapKeyRef.Key)
				} else {
					v = envValue{value: val, known: true, from: "ConfigMap " + cm.Name}
				}
			case vf.SecretKeyRef != nil:
				s := m.secrets[vf.SecretKeyRef.Name]
				if s == nil {
					if !external[vf.SecretKeyRef.Name] {
						t.Errorf("container %s env %s: no Secret %q", c.Name, e.Name, vf.SecretKeyRef.Name)
					}
					v.from = "Secret " + vf.SecretKeyRef.Name
				} else if val, ok := secretValue(s, vf.SecretKeyRef.Key); !ok {
					t.Errorf("container %s env %s: Secret %s has no key %q", c.Name, e.Name, s.Name, vf.SecretKeyRef.Key)
				} else {
					v = envValue{value: val, known: true, from: "Secret " + s.Name}
				}
			}
		}
		env[e.Name] = v
	}
	return env
}

// literalEnv is a container's environment with every value the manifests give (for the dev
// overlay's own containers).
func (m *manifests) literalEnv(t *testing.T, c *corev1.Container) map[string]string {
	out := map[string]string{}
	for k, v := range m.containerEnv(t, c, nil) {
		out[k] = v.value
	}
	return out
}

// fromSecret says whether name comes from the Secret secret (rendered or external: a variable
// the manifests don't set at all comes from an external Secret if the container reads one).
func (e envMap) fromSecret(name, secret string) bool {
	v, ok := e[name]
	if !ok {
		return secret != "" // unknown keys of an external Secret
	}
	return v.from == "Secret "+secret
}

// valueOr is a variable's value, or the README's default when the manifests don't set it.
func (e envMap) valueOr(name string, vars map[string]string) string {
	if v, ok := e[name]; ok && v.known {
		return v.value
	}
	return vars[name]
}

func (e envMap) durationOr(t *testing.T, name string, vars map[string]string) time.Duration {
	t.Helper()
	s := e.valueOr(name, vars)
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		t.Errorf("%s = %q is not a duration", name, s)
	}
	return d
}

func sameEnv(a, b envMap) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || v.value != w.value || v.known != w.known || v.fieldPath != w.fieldPath {
			return false
		}
	}
	return true
}

func envNames(e envMap) []string { return keys(e) }

func secretValue(s *corev1.Secret, key string) (string, bool) {
	if v, ok := s.StringData[key]; ok {
		return v, true
	}
	v, ok := s.Data[key] // base64 in the YAML, decoded by the JSON decoder
	return string(v), ok
}

func containerNames(cs []corev1.Container) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func keys[V any](m map[string]V) []string {
	return slices.Sorted(func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	})
}

func ptrString[T any](p *T) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

// --- the README's configuration table ---

// configRow is a row of the README's configuration table: | `NAME` | default | meaning |.
var configRow = regexp.MustCompile("^\\|\\s*`([A-Z][A-Z0-9_]*)`\\s*\\|\\s*([^|]*?)\\s*\\|")

// readmeVariables reads the README's configuration table: every variable the service reads
// (internal/app/config_env_test.go checks the table against ConfigFromEnv), with its default
// when the table gives one as a literal (`...`), or "".
func readmeVariables(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vars := map[string]string{}
	inSection := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			inSection = strings.TrimSpace(line) == "## Configuration"
			continue
		}
		if !inSection {
			continue
		}
		if row := configRow.FindStringSubmatch(line); row != nil {
			if _, dup := vars[row[1]]; dup {
				t.Fatalf("README: %s is in the configuration table twice", row[1])
			}
			def := row[2]
			if len(def) >= 2 && strings.HasPrefix(def, "`") && strings.HasSuffix(def, "`") && strings.Count(def, "`") == 2 {
				vars[row[1]] = def[1 : len(def)-1]
			} else {
				vars[row[1]] = ""
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vars) == 0 {
		t.Fatalf("README: no configuration table (rows | `NAME` | default | meaning | under ## Configuration)")
	}
	return vars
}
