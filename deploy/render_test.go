package deploy_test

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

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
