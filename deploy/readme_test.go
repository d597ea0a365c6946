package deploy_test

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
)

// --- the configuration table, docs/configuration.md ---

// configRow is a row of the configuration table (docs/configuration.md): | `NAME` | default | meaning |.
var configRow = regexp.MustCompile("^\\|\\s*`([A-Z][A-Z0-9_]*)`\\s*\\|\\s*([^|]*?)\\s*\\|")

// readmeVariables reads the configuration table (docs/configuration.md): every variable the service reads
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
			inSection = strings.TrimSpace(line) == "## Variables"
			continue
		}
		if !inSection {
			continue
		}
		if row := configRow.FindStringSubmatch(line); row != nil {
			if _, dup := vars[row[1]]; dup {
				t.Fatalf("docs/configuration.md: %s is in the configuration table twice", row[1])
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
		t.Fatalf("docs/configuration.md: no configuration table (rows | `NAME` | default | meaning | under ## Variables)")
	}
	return vars
}
