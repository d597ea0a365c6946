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

// runtimeRow is the table's row of Go's runtime's variables, which the manifests may set too:
// | `GOGC`, `GOMEMLIMIT` | ... |.
var runtimeRow = regexp.MustCompile("^\\|\\s*`GOGC`, `GOMEMLIMIT`\\s*\\|")

// leadingLiteral is a default cell that opens with a literal value: `336h`, or `0`: no cap.
var leadingLiteral = regexp.MustCompile("^`([^`]*)`(?:$|:)")

// readmeVariables reads the configuration table (docs/configuration.md): every variable the service reads
// (internal/config's tests check the table against config.Variables), with its default when
// the table's cell opens with one as a literal (`...`, or `0`: no cap), or "".
func readmeVariables(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
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
		if runtimeRow.MatchString(line) {
			vars["GOGC"], vars["GOMEMLIMIT"] = "", ""
		}
		if row := configRow.FindStringSubmatch(line); row != nil {
			if _, dup := vars[row[1]]; dup {
				t.Fatalf("docs/configuration.md: %s is in the configuration table twice", row[1])
			}
			vars[row[1]] = ""
			if lit := leadingLiteral.FindStringSubmatch(row[2]); lit != nil {
				vars[row[1]] = lit[1]
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
