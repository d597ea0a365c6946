package auth

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

const adminToken = "an-admin-token-of-at-least-32-chars"

// The admin token is compared in constant time. Timing can't be measured reliably in a test, so
// this reads the source of Guard.isAdmin instead: the tokens meet only in
// subtle.ConstantTimeCompare, and every other comparison there (==, !=, or a comparing function
// of strings or bytes) has a literal on one side, such as the empty string or the scheme.
func TestAdminTokenComparedInConstantTime(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "guard.go", nil, 0)
	require.NoError(t, err)
	var fn *ast.FuncDecl
	for _, d := range f.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && d.Name.Name == "isAdmin" && d.Recv != nil {
			fn = d
		}
	}
	require.NotNil(t, fn, "guard.go has no method isAdmin")

	isLiteral := func(e ast.Expr) bool {
		_, ok := ast.Unparen(e).(*ast.BasicLit)
		return ok
	}
	comparing := map[string]bool{
		"strings.EqualFold": true, "strings.Compare": true, "strings.HasPrefix": true, "strings.HasSuffix": true,
		"bytes.Equal": true, "bytes.EqualFold": true, "bytes.Compare": true, "bytes.HasPrefix": true,
		"slices.Equal": true, "reflect.DeepEqual": true, "hmac.Equal": true,
	}
	// hashed are the variables that hold a SHA-256 of something: ConstantTimeCompare returns at
	// once when its arguments differ in length, so the tokens are hashed to one length first.
	hashed := map[string]bool{}
	adminHash := func(e ast.Expr) bool { // the Guard's field admin: NewGuard's SHA-256 of ADMIN_TOKEN
		sel, ok := e.(*ast.SelectorExpr)
		return ok && sel.Sel.Name == "admin"
	}
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
			if call, ok := as.Rhs[0].(*ast.CallExpr); (ok && callName(call) == "sha256.Sum256") || adminHash(as.Rhs[0]) {
				if id, ok := as.Lhs[0].(*ast.Ident); ok {
					hashed[id.Name] = true
				}
			}
		}
		return true
	})
	constantTime := 0
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if (n.Op == token.EQL || n.Op == token.NEQ) && !isLiteral(n.X) && !isLiteral(n.Y) {
				t.Errorf("%s: a comparison without a literal side; compare tokens with subtle.ConstantTimeCompare", fset.Position(n.Pos()))
			}
		case *ast.CallExpr:
			name := callName(n)
			if name == "subtle.ConstantTimeCompare" {
				constantTime++
				for _, arg := range n.Args {
					if !hashed[slicedVariable(arg)] {
						t.Errorf("%s: ConstantTimeCompare of something other than a SHA-256 sum", fset.Position(arg.Pos()))
					}
				}
			}
			if comparing[name] {
				literal := false
				for _, arg := range n.Args {
					literal = literal || isLiteral(arg)
				}
				if !literal {
					t.Errorf("%s: %s without a literal argument; compare tokens with subtle.ConstantTimeCompare", fset.Position(n.Pos()), name)
				}
			}
		}
		return true
	})
	require.Equal(t, 1, constantTime, "authorized compares the tokens with subtle.ConstantTimeCompare, once")

	// Tokens of any length are refused, and only the token itself is let in.
	g := NewGuard(nil, adminToken)
	for _, presented := range []string{"", "x", adminToken[:1], adminToken + "x", adminToken + adminToken} {
		require.False(t, g.isAdmin(presented), strconv.Quote(presented))
	}
	require.True(t, g.isAdmin(adminToken))
	require.False(t, NewGuard(nil, "").isAdmin(adminToken), "no ADMIN_TOKEN: nobody")
}

// callName is "pkg.Func" for a call of a package's function, else "".
func callName(call *ast.CallExpr) string {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return ""
	}
	return pkg.Name + "." + sel.Sel.Name
}

// slicedVariable is x for the expression x[:], else "".
func slicedVariable(e ast.Expr) string {
	slice, ok := e.(*ast.SliceExpr)
	if !ok || slice.Low != nil || slice.High != nil {
		return ""
	}
	id, ok := slice.X.(*ast.Ident)
	if !ok {
		return ""
	}
	return id.Name
}
