package processor

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// The token is read from the one Authorization header and nowhere else: a second header, or the
// token under another name, does not open the admin endpoints.
func TestHTTPAdminTokenOnlyFromTheAuthorizationHeader(t *testing.T) {
	t.Parallel()
	r := newHTTPReplicas(t)
	for _, tc := range []struct {
		why     string
		headers [][2]string
	}{
		{"a wrong Authorization header before the right one", [][2]string{{"Authorization", "Bearer wrong"}, {"Authorization", "Bearer " + adminToken}}},
		{"the token in another header", [][2]string{{"X-Admin-Token", adminToken}}},
		{"the token as a proxy's credentials", [][2]string{{"Proxy-Authorization", "Bearer " + adminToken}}},
	} {
		req := httptest.NewRequest(http.MethodPost, "/admin/processors/emails/retry-parked", nil)
		for _, h := range tc.headers {
			req.Header.Add(h[0], h[1])
		}
		w := httptest.NewRecorder()
		r.holder.ServeHTTP(w, req)
		requireProblem(t, w, http.StatusUnauthorized, "Unauthorized")
	}
	require.Equal(t, 2, countParked(t, r.env.cps, "emails"), "nothing was requeued")
}

// The admin token is compared in constant time. Timing can't be measured reliably in a test, so
// this reads the source of Routes.authorized instead: the tokens meet only in
// subtle.ConstantTimeCompare, and every other comparison there (==, !=, or a comparing function
// of strings or bytes) has a literal on one side, such as the empty string or the scheme.
func TestAdminTokenComparedInConstantTime(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "http.go", nil, 0)
	require.NoError(t, err)
	var fn *ast.FuncDecl
	for _, d := range f.Decls {
		if d, ok := d.(*ast.FuncDecl); ok && d.Name.Name == "authorized" && d.Recv != nil {
			fn = d
		}
	}
	require.NotNil(t, fn, "http.go has no method authorized")

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
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
			if call, ok := as.Rhs[0].(*ast.CallExpr); ok && callName(call) == "sha256.Sum256" {
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
	for _, presented := range []string{"", "x", adminToken[:1], adminToken + "x", adminToken + adminToken} {
		req := httptest.NewRequest(http.MethodPost, "/admin/processors/emails/replay", nil)
		req.Header.Set("Authorization", "Bearer "+presented)
		require.False(t, Routes{AdminToken: adminToken}.authorized(req), strconv.Quote(presented))
	}
	req := httptest.NewRequest(http.MethodPost, "/admin/processors/emails/replay", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	require.True(t, Routes{AdminToken: adminToken}.authorized(req))
	require.False(t, Routes{}.authorized(req), "no ADMIN_TOKEN: nobody")
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
