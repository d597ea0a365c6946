package importcheck

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// diagramStart opens the drawing of the packages in docs/architecture.md, which this test reads.
const diagramStart = "```mermaid\nflowchart TB\n  %% packages: each box lists packages, each arrow is an import"

// diagram is the drawing of the packages: each box (node) lists packages, relative to the
// module, and each arrow goes from a box to one that a package of it imports.
type diagram struct {
	boxOf  map[string]string   // package: the box that lists it
	arrows map[[2]string]bool  // from box, to box
	lists  map[string][]string // box: its packages
}

var (
	diagramBox   = regexp.MustCompile(`^\s*(\w+)\["([^"]+)"\]\s*$`)
	diagramArrow = regexp.MustCompile(`^\s*(\w+)\s*-->\s*(\w+)\s*$`)
)

// readDiagram reads the drawing from docs/architecture.md.
func readDiagram(t *testing.T) diagram {
	t.Helper()
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), diagramStart)
	if !ok {
		t.Fatalf("docs/architecture.md has no drawing that begins %q", diagramStart)
	}
	body, _, _ := strings.Cut(rest, "```")
	d := diagram{boxOf: map[string]string{}, arrows: map[[2]string]bool{}, lists: map[string][]string{}}
	for _, line := range strings.Split(body, "\n") {
		if m := diagramBox.FindStringSubmatch(line); m != nil {
			for _, path := range strings.Split(m[2], ", ") {
				if other, dup := d.boxOf[path]; dup {
					t.Errorf("%s is in two boxes of the drawing: %s and %s", path, other, m[1])
				}
				d.boxOf[path] = m[1]
				d.lists[m[1]] = append(d.lists[m[1]], path)
			}
		} else if m := diagramArrow.FindStringSubmatch(line); m != nil {
			d.arrows[[2]string{m[1], m[2]}] = true
		}
	}
	return d
}

// docs/architecture.md draws the packages that ship as they are: every one in one box, an
// arrow wherever a package of one box imports a package of another, and no arrow that no
// import stands for.
func TestTheDrawingIsTheImports(t *testing.T) {
	t.Parallel()
	d := readDiagram(t)
	pkgs := list(t)
	imports := map[[2]string]bool{}
	for path, p := range pkgs {
		if isTooling(path) {
			continue
		}
		from, ok := d.boxOf[path]
		if !ok {
			t.Errorf("%s is in no box of docs/architecture.md's drawing", path)
			continue
		}
		for _, imported := range p.Imports {
			to, ok := local(imported)
			if !ok || d.boxOf[to] == "" || d.boxOf[to] == from {
				continue
			}
			imports[[2]string{from, d.boxOf[to]}] = true
			if !d.arrows[[2]string{from, d.boxOf[to]}] {
				t.Errorf("%s imports %s: the drawing needs %s --> %s", path, to, from, d.boxOf[to])
			}
		}
	}
	for arrow := range d.arrows {
		if !imports[arrow] {
			t.Errorf("the drawing's %s --> %s stands for no import", arrow[0], arrow[1])
		}
	}
	for path := range d.boxOf {
		if _, ok := pkgs[path]; !ok {
			t.Errorf("the drawing lists %s, which is no package of the module", path)
		}
	}
}
