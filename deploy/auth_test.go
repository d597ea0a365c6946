package deploy_test

import (
	"net/url"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// signInVariables are the sign-in settings (docs/configuration.md), which the library container
// reads, and only them, from the ConfigMap authConfigMap, each by a key of its own name; true
// for those it requires (not optional: a pod doesn't start without them), false for those an
// environment may leave to the service's default.
var signInVariables = map[string]bool{
	"AUTH_ISSUER":       true,
	"AUTH_AUDIENCE":     true,
	"AUTH_ROLES_CLAIM":  false,
	"AUTH_MEMBER_CLAIM": false,
	"AUTH_CLIENT_ID":    true,
}

// minAdminTokenLength is the service's auth.MinAdminTokenLength (a module this one doesn't
// import): a shorter ADMIN_TOKEN is refused at start. TestImageBinary runs the binary with the
// dev overlay's, which catches a disagreement.
const minAdminTokenLength = 32

// checkSignIn checks where the library container's sign-in settings come from: all of them
// from one ConfigMap, by keyRefs, the required ones not optional, the others optional; nothing
// else sets them (env wins over envFrom, so a value in library-config would be ignored); and
// the init container doesn't read that ConfigMap: `library migrate` needs only DATABASE_URL and
// never checks who may sign in. It returns the ConfigMap's name ("" when there is none).
func checkSignIn(t *testing.T, m *manifests, c, ic *corev1.Container) string {
	t.Helper()
	refs := map[string]bool{}
	read := map[string]bool{}
	for _, e := range c.Env {
		required, isSignIn := signInVariables[e.Name]
		if e.ValueFrom == nil || e.ValueFrom.ConfigMapKeyRef == nil {
			if isSignIn {
				t.Errorf("the library container sets %s itself; want it from the ConfigMap %q by key", e.Name, authConfigMap)
			}
			continue
		}
		ref := e.ValueFrom.ConfigMapKeyRef
		if !isSignIn {
			t.Errorf("the library container reads %s from ConfigMap %s by key; only the sign-in settings come so", e.Name, ref.Name)
			continue
		}
		refs[ref.Name], read[e.Name] = true, true
		if ref.Key != e.Name {
			t.Errorf("the library container reads %s from key %q; want the key named as the variable (auth.example.yaml)", e.Name, ref.Key)
		}
		optional := ref.Optional != nil && *ref.Optional
		switch {
		case required && optional:
			t.Errorf("%s is read with optional: true; a pod must not start without it", e.Name)
		case !required && !optional:
			t.Errorf("%s is read without optional: true; an environment may leave it to the service's default", e.Name)
		}
	}
	for _, name := range keys(signInVariables) {
		if !read[name] {
			t.Errorf("the library container doesn't read %s from the ConfigMap %q", name, authConfigMap)
		}
	}
	if len(refs) != 1 {
		t.Errorf("the library container reads its sign-in settings from ConfigMaps %v, want one, %q", keys(refs), authConfigMap)
		return ""
	}
	authRef := keys(refs)[0]

	for _, ef := range c.EnvFrom {
		var names []string
		switch {
		case ef.ConfigMapRef != nil && ef.ConfigMapRef.Name == authRef:
			t.Errorf("the library container reads all of ConfigMap %s (envFrom); want the sign-in settings by key", authRef)
		case ef.ConfigMapRef != nil && m.configMaps[ef.ConfigMapRef.Name] != nil:
			names = keys(m.configMaps[ef.ConfigMapRef.Name].Data)
		case ef.SecretRef != nil && m.secrets[ef.SecretRef.Name] != nil:
			s := m.secrets[ef.SecretRef.Name]
			names = append(keys(s.StringData), keys(s.Data)...)
		}
		for _, name := range names {
			if _, isSignIn := signInVariables[name]; isSignIn {
				t.Errorf("the library container's envFrom sets %s, which its env takes from ConfigMap %s instead", name, authRef)
			}
		}
	}

	for _, e := range ic.Env {
		if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil && e.ValueFrom.ConfigMapKeyRef.Name == authRef {
			t.Errorf("the init container reads %s from ConfigMap %s; `library migrate` doesn't sign anyone in", e.Name, authRef)
		}
	}
	for _, ef := range ic.EnvFrom {
		if ef.ConfigMapRef != nil && ef.ConfigMapRef.Name == authRef {
			t.Errorf("the init container reads ConfigMap %s; `library migrate` doesn't sign anyone in", authRef)
		}
	}
	return authRef
}

// checkAuthData checks the keys of a sign-in ConfigMap: sign-in settings only (a misspelt
// optional one would be ignored without a word), the required ones included.
func checkAuthData(t *testing.T, where string, data map[string]string, vars map[string]string) {
	t.Helper()
	for _, k := range keys(data) {
		if _, isSignIn := signInVariables[k]; !isSignIn {
			t.Errorf("%s has key %s, which is not a sign-in setting the library container reads (%v)", where, k, keys(signInVariables))
		}
		if _, ok := vars[k]; !ok {
			t.Errorf("%s sets %s, which the service doesn't read (docs/configuration.md)", where, k)
		}
	}
	for name, required := range signInVariables {
		if _, ok := data[name]; required && !ok {
			t.Errorf("%s lacks %s, which the library container requires", where, name)
		}
	}
}

// checkDevSignIn checks that the demo runs without sign-in, on purpose: AUTH=off, and the
// ConfigMap the base requires, generated, with an empty AUTH_ISSUER (the service refuses AUTH=off
// together with an issuer).
func checkDevSignIn(t *testing.T, m *manifests, app libraryApp) {
	t.Helper()
	cm := m.configMaps[app.authRef]
	if cm == nil {
		t.Errorf("the dev overlay renders no ConfigMap %q for the library container's sign-in settings", app.authRef)
		return
	}
	if !strings.HasPrefix(cm.Name, authConfigMap+"-") {
		t.Errorf("the library container reads ConfigMap %q, want the generated %q-<hash>", cm.Name, authConfigMap)
	}
	checkAuthData(t, "the dev ConfigMap "+cm.Name, cm.Data, readmeVariables(t))
	if issuer, ok := cm.Data["AUTH_ISSUER"]; !ok || issuer != "" {
		t.Errorf("the dev AUTH_ISSUER is %q; the demo has no provider: want it empty, with AUTH=off", issuer)
	}
	if v := app.env["AUTH"]; !v.known || v.value != "off" || !strings.HasPrefix(v.from, "ConfigMap library-config") {
		t.Errorf("the dev AUTH = %+v, want off from library-config: the demo runs without sign-in on purpose", v)
	}
}

// TestAuthExample checks the sign-in ConfigMap operators copy: sign-in settings only, a
// provider over https, and what the base requires of it.
func TestAuthExample(t *testing.T) {
	vars := readmeVariables(t)
	doc, err := os.ReadFile(authExample)
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := strictDecode(doc, &cm); err != nil {
		t.Fatalf("%s: %v", authExample, err)
	}
	if cm.APIVersion != "v1" || cm.Kind != "ConfigMap" || cm.Name != authConfigMap {
		t.Errorf("%s is %s %s %q, want v1 ConfigMap %q", authExample, cm.APIVersion, cm.Kind, cm.Name, authConfigMap)
	}
	if len(cm.BinaryData) != 0 {
		t.Errorf("%s has binaryData; the settings are text", authExample)
	}
	checkAuthData(t, authExample, cm.Data, vars)
	issuer, err := url.Parse(cm.Data["AUTH_ISSUER"])
	if err != nil || issuer.Scheme != "https" || issuer.Host == "" || issuer.User != nil || issuer.RawQuery != "" || issuer.Fragment != "" {
		t.Errorf("%s: AUTH_ISSUER %q, want the provider's https URL", authExample, cm.Data["AUTH_ISSUER"])
	}
	if cm.Data["AUTH_AUDIENCE"] == "" {
		t.Errorf("%s: AUTH_AUDIENCE is empty; the service requires it with AUTH_ISSUER", authExample)
	}

	// Applied next to the base, it gives the library container its sign-in settings.
	m := render(t, baseDir)
	m.configMaps[cm.Name] = &cm
	c := &m.deployments[appName].Spec.Template.Spec.Containers[0]
	env := m.containerEnv(t, c, map[string]bool{"Secret " + appSecret: true})
	for name, v := range cm.Data {
		if got := env[name]; !got.known || got.value != v {
			t.Errorf("with %s applied, the library container's %s = %+v, want %q", authExample, name, got, v)
		}
	}
}
