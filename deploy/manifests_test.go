package deploy_test

import (
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

const (
	entryDir      = "k8s" // `kubectl apply -k deploy/k8s`: the base, re-exported
	baseDir       = "k8s/base"
	devDir        = "k8s/dev"
	secretExample = "k8s/secret.example.yaml"
	authExample   = "k8s/auth.example.yaml"
	readmePath    = "../docs/configuration.md" // the configuration table

	// The names the manifests give the service's objects.
	appName       = "library"      // Deployment, Service, PodDisruptionBudget, main container
	appSecret     = "library"      // the Secret the base expects and the dev overlay generates
	authConfigMap = "library-auth" // the sign-in settings: expected by the base, as appSecret
	migrateName   = "migrate"      // the init container
	httpPortName  = "http"
	wantReplicas  = 2
	wantUID       = 65532 // nonroot in the distroless image; the Dockerfile's USER
	wantHTTPPort  = 8080
	readinessPath = "/readyz"
	livenessPath  = "/healthz"
)

// secretVariables may hold passwords or tokens: they belong in a Secret, never in a ConfigMap
// or a literal env value.
var secretVariables = []string{"DATABASE_URL", "SMTP_URL", "ADMIN_TOKEN", "PII_KEY"}

// baseExternal are the objects the base refers to without rendering them, keyed "Kind name":
// each environment provides its own (secret.example.yaml, auth.example.yaml).
var baseExternal = map[string]bool{"Secret " + appSecret: true, "ConfigMap " + authConfigMap: true}

func TestBase(t *testing.T) {
	vars := readmeVariables(t)
	m := render(t, baseDir)

	// The base expects the Secret rather than carrying one: its values differ per environment.
	if len(m.secrets) != 0 {
		t.Errorf("the base renders Secrets %v; it should only reference %q, provided per environment", keys(m.secrets), appSecret)
	}
	checkReferences(t, m, baseExternal)
	checkServices(t, m)
	app := checkLibrary(t, m, vars, "library")
	if app.secretRef != appSecret {
		t.Errorf("the Deployment reads its Secret %q, want %q (secret.example.yaml)", app.secretRef, appSecret)
	}

	// Nor does it carry the sign-in settings, which differ per environment too; and it signs
	// people in: sign-in off is for an overlay that means it.
	if app.authRef != authConfigMap {
		t.Errorf("the library container reads its sign-in settings from ConfigMap %q, want %q (auth.example.yaml)", app.authRef, authConfigMap)
	}
	for name := range m.configMaps {
		if name == authConfigMap || strings.HasPrefix(name, authConfigMap+"-") {
			t.Errorf("the base renders ConfigMap %s; %q is provided per environment", name, authConfigMap)
		}
	}
	if v, ok := app.env["AUTH"]; ok {
		t.Errorf("%s sets AUTH=%q: the base must not turn sign-in off", v.from, v.value)
	}
	checkTrustedProxies(t, app.env)
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
	if token, _ := secretValue(secret, "ADMIN_TOKEN"); len(token) < minAdminTokenLength {
		t.Errorf("the dev ADMIN_TOKEN has %d characters; the service refuses fewer than %d", len(token), minAdminTokenLength)
	}
	checkDevSignIn(t, m, app)

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
			t.Errorf("%s sets %s, which the service doesn't read (docs/configuration.md)", secretExample, k)
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
