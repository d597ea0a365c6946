package importcell

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// deployedConfig is the base deployment's configuration (its ConfigMap), from the module's
// root.
const deployedConfig = "deploy/k8s/base/config.env"

// runtimeVariables are the Go runtime's settings the base deployment gives the service.
var runtimeVariables = []string{"GOGC", "GOMEMLIMIT"}

// DeployedRuntime returns the Go runtime's settings in the base deployment's configuration
// under root, as NAME=value, in runtimeVariables' order: the catch-up's service runs with them,
// as a replica does.
func DeployedRuntime(root string) ([]string, error) {
	f, err := os.Open(filepath.Join(root, deployedConfig))
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	found := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && slices.Contains(runtimeVariables, name) {
			found[name] = value
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", deployedConfig, err)
	}
	var env []string
	for _, name := range runtimeVariables {
		if v, ok := found[name]; ok {
			env = append(env, name+"="+v)
		}
	}
	return env, nil
}
