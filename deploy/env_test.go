package deploy_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

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
// env, which wins; a missing optional object or key sets nothing. The objects in external
// ("Secret name", "ConfigMap name") are provided per environment, not rendered: their keys and
// values are unknown.
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
				if !external["ConfigMap "+ef.ConfigMapRef.Name] && !isTrue(ef.ConfigMapRef.Optional) {
					t.Errorf("container %s: no ConfigMap %q", c.Name, ef.ConfigMapRef.Name)
				}
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
				if !external["Secret "+ef.SecretRef.Name] && !isTrue(ef.SecretRef.Optional) {
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
			var (
				kind, name, key string
				optional        bool
				data            map[string]string // the rendered object's, nil if not rendered
			)
			switch {
			case vf.FieldRef != nil:
				v.fieldPath = vf.FieldRef.FieldPath
			case vf.ConfigMapKeyRef != nil:
				r := vf.ConfigMapKeyRef
				kind, name, key, optional = "ConfigMap", r.Name, r.Key, isTrue(r.Optional)
				if cm := m.configMaps[name]; cm != nil {
					data = cm.Data
				}
			case vf.SecretKeyRef != nil:
				r := vf.SecretKeyRef
				kind, name, key, optional = "Secret", r.Name, r.Key, isTrue(r.Optional)
				if s := m.secrets[name]; s != nil {
					data = map[string]string{}
					for k := range s.Data {
						data[k], _ = secretValue(s, k)
					}
					maps.Copy(data, s.StringData)
				}
			}
			if kind != "" {
				v.from = kind + " " + name
				val, ok := data[key]
				switch {
				case data == nil && external[kind+" "+name]:
					// Provided per environment: the value is unknown here.
				case ok:
					v.value, v.known = val, true
				case optional:
					continue // the kubelet sets nothing
				case data == nil:
					t.Errorf("container %s env %s: no %s %q", c.Name, e.Name, kind, name)
				default:
					t.Errorf("container %s env %s: %s %s has no key %q", c.Name, e.Name, kind, name, key)
				}
			}
		}
		env[e.Name] = v
	}
	return env
}

func isTrue(b *bool) bool { return b != nil && *b }

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

// valueOr is a variable's value, or the default in docs/configuration.md when the manifests don't set it.
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
