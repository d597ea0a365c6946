package config_test

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"library/internal/config"
)

// The configuration table (docs/configuration.md) is the operators' list of the service's
// environment variables, and deploy/ checks the Kubernetes manifests against it. These tests
// hold it to Variables, name by name and default by default, both ways: a variable or a
// default changed on one side only fails here, so that the chain manifests →
// docs/configuration.md → code holds.

// docRow is a documented variable: its place in the table, its default cell, and the literal
// the cell opens with (`...`), if it does.
type docRow struct {
	place   int
	cell    string
	literal string
	hasLit  bool
}

// runtimeVariables are Go's runtime's, which the deployment sets and the table documents.
var runtimeVariables = []string{"GOGC", "GOMEMLIMIT"}

var (
	// oneName is a first cell that names one variable.
	oneName = regexp.MustCompile("^`([A-Z][A-Z0-9_]*)`$")
	// aName is a variable named in a first cell that names several.
	aName = regexp.MustCompile("`([A-Z][A-Z0-9_]*\\*?)`")
	// leadingLiteral is a default cell that opens with a literal value: `336h`, or `0`: no cap.
	leadingLiteral = regexp.MustCompile("^`([^`]*)`(?:$|:)")
)

// docsVariables reads the table under "## Variables" in docs/configuration.md. Rows that name
// several variables are read by others than FromEnv, and are left out: the OpenTelemetry SDK's
// (package telemetry reads them) and Go's runtime's (runtimeVariables); any other such row is
// an error.
func docsVariables(t *testing.T) map[string]docRow {
	t.Helper()
	f, err := os.Open("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	rows := map[string]docRow{}
	inSection := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			inSection = strings.TrimSpace(line) == "## Variables"
			continue
		}
		if !inSection || !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")
		if len(cells) < 4 {
			t.Errorf("docs/configuration.md: %q is not a row | variable | default | meaning |", line)
			continue
		}
		first, def := strings.TrimSpace(cells[1]), strings.TrimSpace(cells[2])
		m := oneName.FindStringSubmatch(first)
		if m == nil {
			for _, n := range aName.FindAllStringSubmatch(first, -1) {
				if !strings.HasPrefix(n[1], "OTEL_") && !slices.Contains(runtimeVariables, n[1]) {
					t.Errorf("docs/configuration.md: the row %q names several variables; only the OpenTelemetry SDK's (OTEL_*) and Go's runtime's %v share a row", first, runtimeVariables)
				}
			}
			continue
		}
		name := m[1]
		if _, dup := rows[name]; dup {
			t.Errorf("docs/configuration.md: %s is in the configuration table twice", name)
		}
		row := docRow{place: len(rows), cell: def}
		if lit := leadingLiteral.FindStringSubmatch(def); lit != nil {
			row.literal, row.hasLit = lit[1], true
		}
		rows[name] = row
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("docs/configuration.md: no configuration table (rows | `NAME` | default | meaning | under ## Variables)")
	}
	return rows
}

// Every variable of Variables is in the table, in the same order, with its default: the
// literal the default cell opens with, or, for a variable whose unset means none, off or what
// is found at start, words (unset, host name) instead of a literal. And the table lists no
// variable that Variables doesn't.
func TestVariablesAreDocumented(t *testing.T) {
	t.Parallel()
	docs := docsVariables(t)
	last := -1
	for _, v := range config.Variables {
		row, ok := docs[v.Name]
		switch {
		case !ok:
			t.Errorf("the service reads %s, which docs/configuration.md doesn't list", v.Name)
		case v.Default != "" && (!row.hasLit || row.literal != v.Default):
			t.Errorf("%s defaults to %q, but docs/configuration.md says %s; give the default as `%s` there", v.Name, v.Default, row.cell, v.Default)
		case v.Default == "" && row.hasLit:
			t.Errorf("%s has no default (unset means none), but docs/configuration.md gives `%s`", v.Name, row.literal)
		}
		if ok && row.place < last {
			t.Errorf("%s comes earlier in docs/configuration.md than in Variables: keep one order", v.Name)
		}
		if ok {
			last = row.place
		}
	}
	for name := range docs {
		if !slices.ContainsFunc(config.Variables, func(v config.Variable) bool { return v.Name == name }) {
			t.Errorf("docs/configuration.md lists %s, which the service doesn't read (config.Variables)", name)
		}
	}
}

// FromEnv asks for the variables of Variables, each once, and no other: with nothing set, and
// with every variable set to its default.
func TestFromEnvReadsVariables(t *testing.T) {
	t.Parallel()
	var names []string
	all := map[string]string{}
	for _, v := range config.Variables {
		if slices.Contains(names, v.Name) {
			t.Errorf("%s is in Variables twice", v.Name)
		}
		names = append(names, v.Name)
		all[v.Name] = v.Default
	}
	for _, env := range []map[string]string{nil, all} {
		var asked []string
		if _, err := config.FromEnv(func(name string) string {
			asked = append(asked, name)
			return env[name]
		}); err != nil {
			t.Fatalf("FromEnv(%v): %v", env, err)
		}
		if !slices.Equal(asked, names) {
			t.Errorf("with %d variables set, FromEnv asks for %v, want %v", len(env), asked, names)
		}
	}
}
