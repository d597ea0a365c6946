package app_test

import (
	"bufio"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"library/internal/app"
)

// The configuration table (docs/configuration.md) is the list of the service's environment variables that
// operators read, and that deploy/manifests_test.go checks the Kubernetes manifests against.
// These tests keep it equal to what ConfigFromEnv reads, so that the chain manifests → docs/configuration.md
// → code holds.

// configRow is a row of the configuration table (docs/configuration.md): | `NAME` | default | meaning |.
var configRow = regexp.MustCompile("^\\|\\s*`([A-Z][A-Z0-9_]*)`\\s*\\|\\s*([^|]*?)\\s*\\|")

// readmeConfigTable returns the variables of the configuration table (docs/configuration.md), each with its
// default when the table gives a literal one (`...`), else "".
func readmeConfigTable(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("../../docs/configuration.md")
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
		row := configRow.FindStringSubmatch(line)
		if !inSection || row == nil {
			continue
		}
		if _, dup := vars[row[1]]; dup {
			t.Errorf("docs/configuration.md: %s is in the configuration table twice", row[1])
		}
		def := row[2]
		if len(def) >= 2 && strings.Count(def, "`") == 2 && strings.HasPrefix(def, "`") && strings.HasSuffix(def, "`") {
			vars[row[1]] = def[1 : len(def)-1]
		} else {
			vars[row[1]] = ""
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vars) == 0 {
		t.Fatal("docs/configuration.md: no configuration table (rows | `NAME` | default | meaning | under ## Variables)")
	}
	return vars
}

// readVariables returns every name ConfigFromEnv asks for, in order, with env as the
// environment.
func readVariables(t *testing.T, env map[string]string) ([]string, app.Config) {
	t.Helper()
	var asked []string
	cfg, err := app.ConfigFromEnv(func(name string) string {
		if !slices.Contains(asked, name) {
			asked = append(asked, name)
		}
		return env[name]
	})
	if err != nil {
		t.Fatalf("ConfigFromEnv(%v): %v", env, err)
	}
	return asked, cfg
}

func TestConfigEnvMatchesREADME(t *testing.T) {
	table := readmeConfigTable(t)
	asked, _ := readVariables(t, nil)
	for _, name := range asked {
		if _, ok := table[name]; !ok {
			t.Errorf("ConfigFromEnv reads %s, which the configuration table (docs/configuration.md) doesn't list", name)
		}
	}
	for name := range table {
		if !slices.Contains(asked, name) {
			t.Errorf("the configuration table (docs/configuration.md) lists %s, which ConfigFromEnv doesn't read", name)
		}
	}
	// With every variable set (to its documented default), no other variable comes into play.
	set := map[string]string{}
	for name, def := range table {
		set[name] = def
	}
	again, _ := readVariables(t, set)
	slices.Sort(asked)
	slices.Sort(again)
	if !slices.Equal(asked, again) {
		t.Errorf("ConfigFromEnv reads %v with nothing set but %v with everything set", asked, again)
	}
}

// TestConfigEnvREADMEDefaults checks the table's literal defaults: setting every variable to
// the default the README gives configures the service exactly as leaving them all unset.
func TestConfigEnvREADMEDefaults(t *testing.T) {
	table := readmeConfigTable(t)
	set := map[string]string{}
	for name, def := range table {
		if def != "" {
			set[name] = def
		}
	}
	if len(set) == 0 {
		t.Fatal("the configuration table (docs/configuration.md) gives no literal default")
	}
	_, unset := readVariables(t, nil)
	for name, value := range set {
		_, one := readVariables(t, map[string]string{name: value})
		unset.Now, one.Now = nil, nil // funcs never compare equal
		if !reflect.DeepEqual(one, unset) {
			t.Errorf("%s=%q (its default in the README) configures the service otherwise than leaving it unset:\n  set:   %+v\n  unset: %+v", name, value, one, unset)
		}
	}
}

// The outbox's limits: SMTP_MAX_IN_FLIGHT a whole number above 0 (default 16), SMTP_MAX_RATE a
// rate of 0 or more (default 0, no cap); anything else is refused, naming the variable.
func TestConfigSMTPLimits(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string {
		return func(name string) string { return vars[name] }
	}
	cfg, err := app.ConfigFromEnv(env(nil))
	if err != nil || cfg.SMTPMaxInFlight != 16 || cfg.SMTPMaxRate != 0 {
		t.Fatalf("defaults: %d in flight, rate %v, %v", cfg.SMTPMaxInFlight, cfg.SMTPMaxRate, err)
	}
	cfg, err = app.ConfigFromEnv(env(map[string]string{"SMTP_MAX_IN_FLIGHT": "4", "SMTP_MAX_RATE": "0.5"}))
	if err != nil || cfg.SMTPMaxInFlight != 4 || cfg.SMTPMaxRate != 0.5 {
		t.Fatalf("set: %d in flight, rate %v, %v", cfg.SMTPMaxInFlight, cfg.SMTPMaxRate, err)
	}
	for name, values := range map[string][]string{
		"SMTP_MAX_IN_FLIGHT": {"0", "-1", "many", "1.5"},
		"SMTP_MAX_RATE":      {"-1", "fast", "NaN", "Inf", "1e400"},
	} {
		for _, v := range values {
			_, err := app.ConfigFromEnv(env(map[string]string{name: v}))
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%q: %v, want an error naming it", name, v, err)
			}
		}
	}
}
