package httpapi

import (
	"strings"

	"library/internal/auth"
)

// anyoneMay are rules that let anyone call the given routes ("POST /decode"), for the test
// modules, which the service's own rules don't know.
func anyoneMay(routes ...string) []auth.Rule {
	rules := auth.Rules()
	for _, r := range routes {
		method, pattern, _ := strings.Cut(r, " ")
		rules = append(rules, auth.Anyone(method, pattern))
	}
	return rules
}

// testRoutes are testModule's routes.
var testRoutes = anyoneMay("GET /panic", "GET /internal", "GET /coded/{code}", "GET /ids/{id}", "POST /decode",
	"POST /accounts/{memberId}/payments", "POST /nothing")
