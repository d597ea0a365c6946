package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every mutation still applies: its text is in its file exactly once, and its package exists.
// A mutation whose code moved or changed would otherwise only show as stale in a run of make
// mutate.
func TestMutationsApply(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	for _, m := range mutations() {
		b, err := os.ReadFile(filepath.Join(root, m.file))
		if err != nil {
			t.Errorf("%s: %v", m.name, err)
			continue
		}
		if n := strings.Count(string(b), m.find); n != 1 {
			t.Errorf("%s: its text is in %s %d times, not once", m.name, m.file, n)
		}
		if _, err := os.Stat(filepath.Join(root, strings.TrimPrefix(m.pkg, "./"))); err != nil {
			t.Errorf("%s: its package %s: %v", m.name, m.pkg, err)
		}
	}
}
