// Package deploy holds no code: its tests check the container image recipe (../Dockerfile,
// ../.dockerignore) and the Kubernetes manifests under k8s/ against the service they deploy.
//
// It is a Go module of its own (library/deploy) so that the Kubernetes and kustomize modules
// its tests need stay out of the service's dependency graph. Run its tests from this folder:
//
//	cd deploy && go test ./...
//
// They render k8s/ (the base, in k8s/base/) and k8s/dev/ with kustomize in process, decode
// every object strictly into the Kubernetes API types, and check probes, ports, security
// settings, shutdown timing and every environment variable name against the configuration
// table, docs/configuration.md (which internal/config's tests in turn check against the code);
// where the sign-in settings come from (the ConfigMap library-auth, per environment, like the
// Secret library: see k8s/auth.example.yaml and k8s/secret.example.yaml); and that Prometheus
// finds /metrics on its own port (METRICS_ADDR, the container port metrics, the pods'
// annotations). They also build the binary from exactly the Docker build context, with the
// Dockerfile's own build command, and run it with the manifests' configuration.
package deploy
