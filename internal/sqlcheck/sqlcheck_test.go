package sqlcheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"
)

// sqlArg is where the statement is among the arguments of the pgx methods that take one:
// Query, QueryRow and Exec (of a Conn, Pool, Tx or PgConn, or of an interface of the service's
// own that wraps them) take (ctx, sql, args...), Batch.Queue takes (sql, args...) and Prepare
// takes (ctx, name, sql).
var sqlArg = map[string]int{"Query": 1, "QueryRow": 1, "Exec": 1, "Queue": 0, "Prepare": 2}

// externalConstants are constants of other modules that statements may include. The const
// declaration below fails to compile if one of them stops being a constant.
var externalConstants = map[string]bool{"github.com/pressly/goose/v3.DefaultTablename": true}

const _ = goose.DefaultTablename

// exempt are the module's folders that are not part of the service: a PostgreSQL for tests,
// which creates and drops databases by generated names, which SQL can't take as parameters, and
// the HTTP tests' harness, which asks it for databases. TestStatementsAreConstants checks that
// no service code imports them. (The benchmark, bench/, is a module of its own.)
var exempt = []string{"internal/testkit/pgtest", "internal/testkit/apitest"}

const modulePath = "library"

// pkg is one folder of the module: its non-test files and the names of its constants.
type pkg struct {
	dir    string // relative to the module root, with slashes
	files  []*ast.File
	consts map[string]bool
}

func TestStatementsAreConstants(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	pkgs := parseModule(t, fset, root)
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages under %s: is this the module root?", len(pkgs), root)
	}

	calls := 0
	for _, p := range pkgs {
		if slices.Contains(exempt, p.dir) {
			continue
		}
		for _, f := range p.files {
			imports := importNames(f)
			for name, importPath := range imports {
				for _, e := range exempt {
					if importPath == modulePath+"/"+e {
						t.Errorf("%s imports %s (as %s), which is exempt from this check", fset.Position(f.Pos()).Filename, importPath, name)
					}
				}
			}
			for _, decl := range f.Decls {
				locals := localNames(decl)
				constant := func(e ast.Expr) bool { return isConstant(e, p, locals, imports, pkgs) }
				ast.Inspect(decl, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					sel, ok := call.Fun.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					i, ok := sqlArg[sel.Sel.Name]
					if !ok || len(call.Args) <= i {
						return true
					}
					calls++
					if !constant(call.Args[i]) {
						t.Errorf("%s: the statement of %s is not a constant: build it from constants only, and pass values as parameters ($1, $2, ...)",
							fset.Position(call.Args[i].Pos()), sel.Sel.Name)
					}
					return true
				})
			}
		}
	}
	// The service sends a few dozen statements; finding none would mean the check looks at
	// nothing.
	if calls < 20 {
		t.Fatalf("found only %d calls that send a statement; the check has lost track of the code", calls)
	}
	t.Logf("%d statements checked", calls)
}

// isConstant reports whether e is a constant string expression: literals, constants and +.
// locals are the names declared inside the function e is in, true for local constants.
func isConstant(e ast.Expr, p *pkg, locals map[string]bool, imports map[string]string, pkgs map[string]*pkg) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING
	case *ast.ParenExpr:
		return isConstant(e.X, p, locals, imports, pkgs)
	case *ast.BinaryExpr:
		return e.Op == token.ADD && isConstant(e.X, p, locals, imports, pkgs) && isConstant(e.Y, p, locals, imports, pkgs)
	case *ast.Ident:
		if isConst, local := locals[e.Name]; local {
			return isConst
		}
		return p.consts[e.Name]
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok {
			return false
		}
		if _, local := locals[x.Name]; local { // a field of a local value, not a package's name
			return false
		}
		importPath, ok := imports[x.Name]
		if !ok {
			return false
		}
		if dir, ok := strings.CutPrefix(importPath, modulePath+"/"); ok {
			other, ok := pkgs[dir]
			return ok && other.consts[e.Sel.Name]
		}
		return externalConstants[importPath+"."+e.Sel.Name]
	}
	return false
}

// localNames returns every name declared inside decl (a function's parameters, results,
// variables and constants, in any of its scopes, and those of the closures in it), each true
// when every declaration of that name is a constant.
func localNames(decl ast.Decl) map[string]bool {
	fn, ok := decl.(*ast.FuncDecl)
	if !ok {
		return nil
	}
	names := map[string]bool{}
	declare := func(id *ast.Ident, isConst bool) {
		if id == nil || id.Name == "_" {
			return
		}
		if was, seen := names[id.Name]; seen {
			isConst = isConst && was
		}
		names[id.Name] = isConst
	}
	fields := func(list *ast.FieldList) {
		if list == nil {
			return
		}
		for _, field := range list.List {
			for _, id := range field.Names {
				declare(id, false)
			}
		}
	}
	fields(fn.Recv)
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncType:
			fields(n.Params)
			fields(n.Results)
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, lhs := range n.Lhs {
					if id, ok := lhs.(*ast.Ident); ok {
						declare(id, false)
					}
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok {
						declare(id, false)
					}
				}
			}
		case *ast.GenDecl:
			for _, spec := range n.Specs {
				if vs, ok := spec.(*ast.ValueSpec); ok {
					for _, id := range vs.Names {
						declare(id, n.Tok == token.CONST)
					}
				}
			}
		}
		return true
	})
	return names
}

var versionSuffix = regexp.MustCompile(`^v[0-9]+$`)

// importNames maps the names a file uses for its imports to their paths.
func importNames(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, imp := range f.Imports {
		importPath, _ := strconv.Unquote(imp.Path.Value)
		name := path.Base(importPath)
		if versionSuffix.MatchString(name) {
			name = path.Base(path.Dir(importPath))
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		out[name] = importPath
	}
	return out
}

func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.HasPrefix(string(b), "module "+modulePath+"\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("the module's go.mod not found above the test's folder")
		}
		dir = parent
	}
}

// parseModule parses every non-test Go file of the module, by folder. Folders of other
// modules (with a go.mod of their own), testdata and hidden folders are not the module's.
func parseModule(t *testing.T, fset *token.FileSet, root string) map[string]*pkg {
	t.Helper()
	pkgs := map[string]*pkg{}
	err := filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if file != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || isFile(filepath.Join(file, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(file, ".go") || strings.HasSuffix(file, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(file))
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(rel)
		p := pkgs[dir]
		if p == nil {
			p = &pkg{dir: dir, consts: map[string]bool{}}
			pkgs[dir] = p
		}
		p.files = append(p.files, f)
		for _, decl := range f.Decls {
			if gen, ok := decl.(*ast.GenDecl); ok && gen.Tok == token.CONST {
				for _, spec := range gen.Specs {
					for _, name := range spec.(*ast.ValueSpec).Names {
						p.consts[name.Name] = true
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func isFile(name string) bool {
	info, err := os.Stat(name)
	return err == nil && !info.IsDir()
}
