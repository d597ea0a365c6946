// Package splice writes one measurement's figures into the report a full run wrote, leaving
// the rest as that run left it: the measurement's section, found by its heading, is replaced
// (or added before "Run on"), and its rows of the targets table, found by the prefix of their
// targets, are replaced (or added at the table's end). A report without a targets table, or
// without the section and a "Run on" to put it before, is refused and left unwritten.
package splice

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Into writes a section titled title, its Markdown body, and the targets table's rows whose
// targets begin with prefix, into the report at path (relative to root unless absolute).
func Into(path, root, title, body string, rows [][]string, prefix string) error {
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("BENCH_ONLY writes into the report of a full run: %w", err)
	}
	lines := strings.Split(string(data), "\n")
	var cells []string
	for _, row := range rows {
		cells = append(cells, "| "+strings.Join(row, " | ")+" |")
	}
	lines, err = targetRows(lines, cells, prefix)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	lines, err = section(lines, title, strings.Split(strings.TrimPrefix(body, "\n"), "\n"))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}

// section replaces the section titled title, which runs to the next heading, with body, or
// puts body before the Run on section.
func section(lines []string, title string, body []string) ([]string, error) {
	start, end := slices.Index(lines, "## "+title), 0
	switch {
	case start >= 0:
		next := slices.IndexFunc(lines[start+1:], func(l string) bool { return strings.HasPrefix(l, "## ") })
		end = len(lines)
		if next >= 0 {
			end = start + 1 + next
		}
	case slices.Index(lines, "## Run on") >= 0:
		start = slices.Index(lines, "## Run on")
		end = start
	default:
		return nil, fmt.Errorf("neither a %s nor a Run on section", title)
	}
	return slices.Concat(lines[:start], body, lines[end:]), nil
}

// targetRows replaces the rows of the targets table whose targets begin with prefix with
// rows, or adds them at its end.
func targetRows(lines, rows []string, prefix string) ([]string, error) {
	heading := slices.Index(lines, "## Targets")
	if heading < 0 {
		return nil, fmt.Errorf("no Targets section")
	}
	var kept []string
	at := -1
	for i := heading + 1; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "|") {
			if at >= 0 {
				return slices.Concat(lines[:heading+1], kept, rows, lines[i:]), nil
			}
			kept = append(kept, lines[i])
			continue
		}
		at = i
		if !strings.HasPrefix(lines[i], "| "+prefix) {
			kept = append(kept, lines[i])
		}
	}
	return nil, fmt.Errorf("the Targets table has no end")
}
