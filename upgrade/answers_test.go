//go:build upgrade

package upgrade

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
)

// routes are the reads whose answers this build must keep: every GET of the release before that
// shows what the log holds.
func routes() []string {
	paths := []string{"/books", "/loans", "/holds", "/loans?overdue=true", "/holds?status=waiting"}
	for _, b := range books {
		paths = append(paths, "/books/"+b.id)
	}
	for _, m := range members {
		paths = append(paths, "/accounts/"+m, "/accounts/"+m+"/history", "/accounts/"+m+"/loans",
			"/accounts/"+m+"/holds", "/accounts/"+m+"/export")
	}
	return paths
}

// answer is a read's status and its body as JSON.
type answer struct {
	Status int
	Body   any
}

// read reads every route.
func read(c client) map[string]answer {
	c.t.Helper()
	out := map[string]answer{}
	for _, path := range routes() {
		a := c.do([]int{http.StatusOK, http.StatusGone, http.StatusNotFound}, http.MethodGet, path, "")
		var body any
		if err := json.Unmarshal([]byte(a.Body), &body); err != nil {
			c.t.Fatalf("GET %s: not JSON: %v: %s", path, err, a.Body)
		}
		out[path] = answer{Status: a.Status, Body: body}
	}
	return out
}

// volatile are the members whose values may differ between two processes reading the same
// log: who answered and when, the log's end, which this build's own work moves on, and a
// stream's version, which the adoption of each book by its title moves on (CopyAdopted).
var volatile = []string{"instance", "position", "exportedAt", "asOf", "version"}

// within reports where before is not within after: every member of an object in before is in
// after with a value within it; arrays are as long, item by item within; anything else equal.
// after may have members before has not. It returns "" when before is within after.
func within(before, after any, at string) string {
	switch b := before.(type) {
	case map[string]any:
		a, ok := after.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: an object became %T", at, after)
		}
		for k, v := range b {
			if slices.Contains(volatile, k) {
				continue
			}
			w, ok := a[k]
			if !ok {
				return fmt.Sprintf("%s.%s: gone", at, k)
			}
			if d := within(v, w, at+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		a, ok := after.([]any)
		if !ok || len(a) != len(b) {
			return fmt.Sprintf("%s: %d items became %v", at, len(b), after)
		}
		for i := range b {
			if d := within(b[i], a[i], fmt.Sprintf("%s[%d]", at, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(before, after) {
		return fmt.Sprintf("%s: %v became %v", at, before, after)
	}
	return ""
}

// allCaughtUp reports whether a /status body shows every processor held and with nothing
// left to read.
func allCaughtUp(body string) bool {
	var s struct {
		Processors []struct {
			Lag        int64  `json:"lag"`
			HoldsLease bool   `json:"holdsLease"`
			State      string `json:"state"`
		} `json:"processors"`
	}
	if json.Unmarshal([]byte(body), &s) != nil || len(s.Processors) == 0 {
		return false
	}
	for _, p := range s.Processors {
		if p.State == "retired" {
			continue // a view's build that a newer one replaced, run by nobody, kept a while for readers
		}
		if p.Lag != 0 || !p.HoldsLease {
			return false
		}
	}
	return true
}

// short is a JSON value for a message.
func short(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return strings.TrimSpace(s)
}
