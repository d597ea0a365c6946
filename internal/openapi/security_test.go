package openapi_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The parts a caller can act in, as x-roles names them, and what each may do.
var (
	parts       = []string{"anonymous", "member", "librarian", "operator"}
	permissions = []string{"allow", "own", "deny"}
)

// xRoles returns an operation's x-roles: what an anonymous caller, a member, a librarian and
// an operator may do. Package auth's tests hold the router's rules to it.
func xRoles(t *testing.T, name string, op *openapi3.Operation) map[string]string {
	t.Helper()
	raw, ok := op.Extensions["x-roles"]
	require.True(t, ok, "%s has x-roles", name)
	b, err := json.Marshal(raw)
	require.NoError(t, err)
	var roles map[string]string
	require.NoError(t, json.Unmarshal(b, &roles), "%s: x-roles is an object of strings", name)
	return roles
}

// xRolesWithQuery returns an operation's x-roles-with-query, none when it has none: for each
// query parameter that has a rule of its own (GET /books?barcode=), the x-roles of the requests
// that carry it.
func xRolesWithQuery(t *testing.T, name string, op *openapi3.Operation) map[string]map[string]string {
	t.Helper()
	raw, ok := op.Extensions["x-roles-with-query"]
	if !ok {
		return nil
	}
	b, err := json.Marshal(raw)
	require.NoError(t, err)
	var roles map[string]map[string]string
	require.NoError(t, json.Unmarshal(b, &roles), "%s: x-roles-with-query is an object of x-roles", name)
	for param := range roles {
		assert.True(t, slices.ContainsFunc(op.Parameters, func(p *openapi3.ParameterRef) bool {
			return p.Value.In == "query" && p.Value.Name == param
		}), "%s: x-roles-with-query names its query parameter %s", name, param)
	}
	return roles
}

// readsToken reports whether an operation reads a token: whether one of its security
// requirements names a scheme. Public operations have none (security: []); the catalogue's
// have an empty one, since a token is optional there but changes the answer.
func readsToken(op *openapi3.Operation) bool {
	if op.Security == nil {
		return false
	}
	for _, req := range *op.Security {
		if len(req) > 0 {
			return true
		}
	}
	return false
}

// Every operation says who may call it, in x-roles, and its security, its 401 and 403 answers
// and its description agree with that.
func TestEveryOperationSaysWhoMayCallIt(t *testing.T) {
	t.Parallel()
	doc := load(t)
	require.Contains(t, doc.Components.SecuritySchemes, "bearer")
	require.Contains(t, doc.Components.SecuritySchemes, "adminToken")
	bearer := doc.Components.SecuritySchemes["bearer"].Value
	assert.Equal(t, "http", bearer.Type)
	assert.Equal(t, "bearer", bearer.Scheme)
	assert.Equal(t, "JWT", bearer.BearerFormat)

	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			name := method + " " + path
			roles := xRoles(t, name, op)
			all := []map[string]string{roles}
			for _, byQuery := range xRolesWithQuery(t, name, op) {
				all = append(all, byQuery)
			}
			for _, rolesOf := range all {
				require.ElementsMatch(t, parts, slices.Collect(maps.Keys(rolesOf)), "%s: x-roles names the four parts", name)
				for part, may := range rolesOf {
					require.Contains(t, permissions, may, "%s: x-roles.%s", name, part)
					if may == "own" {
						assert.Contains(t, path, "{memberId}", "%s: own is the caller's own member id in the path", name)
						assert.NotEqual(t, "anonymous", part, "%s: an anonymous caller has no member id", name)
					}
				}
			}
			require.NotNil(t, op.Security, "%s says its security, [] when public", name)
			assert.NotEmpty(t, op.Description, "%s says its rule in its description", name)

			// Anyone may call it exactly when it has an empty requirement or none at all.
			reqs := *op.Security
			empty := len(reqs) == 0 || slices.ContainsFunc(reqs, func(r openapi3.SecurityRequirement) bool { return len(r) == 0 })
			assert.Equal(t, roles["anonymous"] == "allow", empty, "%s: an anonymous caller may call it", name)
			if len(reqs) == 0 {
				assert.Equal(t, []string{"allow"}, slices.Compact(slices.Sorted(maps.Values(roles))), "%s: security [] only where everyone may call it", name)
			}

			// 403 wherever a signed-in caller may be refused: a role denied, or own only, by the
			// operation's rule or a query parameter's.
			limited := slices.ContainsFunc(all, func(rolesOf map[string]string) bool {
				return slices.ContainsFunc(parts[1:], func(p string) bool { return rolesOf[p] != "allow" })
			})
			assert.Equal(t, limited, op.Responses.Status(http.StatusForbidden) != nil, "%s lists 403 exactly when a signed-in caller may be refused", name)
			if readsToken(op) {
				assert.NotNil(t, op.Responses.Status(http.StatusServiceUnavailable), "%s: 503 until the provider is reached", name)
			}

			// The roles the requirements list are the ones that let a caller in: member for
			// any signed-in person (every one is a member), the others where members may not;
			// none for a public operation.
			want := map[string]bool{}
			if roles["member"] != "deny" && len(reqs) > 0 {
				want["member"] = true
			}
			for _, p := range []string{"librarian", "operator"} {
				if roles[p] == "allow" && roles["member"] != "allow" {
					want[p] = true
				}
			}
			listed, admin := map[string]bool{}, false
			for _, req := range reqs {
				for scheme, names := range req {
					require.Contains(t, []string{"bearer", "adminToken"}, scheme, name)
					admin = admin || scheme == "adminToken"
					if scheme == "bearer" && len(names) == 0 {
						listed["member"] = true // any token: anyone signed in
					}
					for _, n := range names {
						listed[n] = true
					}
				}
			}
			assert.Equal(t, want, listed, "%s: the roles its security lists", name)
			operatorsOnly := roles["operator"] == "allow" && roles["librarian"] == "deny" && roles["member"] == "deny"
			assert.Equal(t, operatorsOnly, admin, "%s: ADMIN_TOKEN, an operator, where only operators may", name)
			assert.Equal(t, operatorsOnly, path == "/status" || strings.HasPrefix(path, "/admin/"), name)
		}
	}
}
