package deploy_test

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

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
// one of external (objects provided outside the manifests, keyed "Kind name"), and that keys
// referred to exist.
func checkReferences(t *testing.T, m *manifests, external map[string]bool) {
	t.Helper()
	for _, pt := range m.podTemplates() {
		pod := &pt.spec.Spec
		for _, c := range slices.Concat(pod.InitContainers, pod.Containers) {
			m.containerEnv(t, &c, external) // fails on a missing object or key
		}
		for _, v := range pod.Volumes {
			if v.ConfigMap != nil && m.configMaps[v.ConfigMap.Name] == nil && !external["ConfigMap "+v.ConfigMap.Name] {
				t.Errorf("%s volume %s: no ConfigMap %q", pt.where, v.Name, v.ConfigMap.Name)
			}
			if v.Secret != nil && m.secrets[v.Secret.SecretName] == nil && !external["Secret "+v.Secret.SecretName] {
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
