package sip2

import "slices"

// Spec describes one message of the protocol: its command identifier, its name, whether the ACS
// (the library system) sends it as a response, its fixed-length fields in order, and the ids of
// its variable-length fields. Parse and Encode are driven by it: the fixed fields are read and
// checked by their lengths; the variable fields are informative (a message may carry fields the
// table does not name, and Missing reports the required ones it lacks).
type Spec struct {
	Code     string
	Name     string
	Response bool
	Fixed    []FixedSpec
	Required []string // variable field ids the specification requires, in its order
	Optional []string // variable field ids it allows, in its order
}

// FixedSpec is one fixed-length field: its name in the specification and its length in characters.
type FixedSpec struct {
	Name string
	Len  int
}

// Length is the number of characters of the message's fixed part, after the command identifier.
func (s Spec) Length() int {
	n := 0
	for _, f := range s.Fixed {
		n += f.Len
	}
	return n
}

// Lookup returns the Spec of a command identifier; the Spec is a copy the caller may keep.
func Lookup(code string) (Spec, bool) {
	s, ok := specs[code]
	if !ok {
		return Spec{}, false
	}
	return s.clone(), true
}

// Specs returns every message the package knows, ordered by command identifier.
func Specs() []Spec {
	out := make([]Spec, 0, len(specs))
	for _, s := range specs {
		out = append(out, s.clone())
	}
	slices.SortFunc(out, func(a, b Spec) int {
		if a.Code < b.Code {
			return -1
		}
		return 1
	})
	return out
}

func (s Spec) clone() Spec {
	s.Fixed = slices.Clone(s.Fixed)
	s.Required = slices.Clone(s.Required)
	s.Optional = slices.Clone(s.Optional)
	return s
}

// specs is the table, built once and never changed: Lookup and Specs hand out copies.
var specs = buildSpecs()

func buildSpecs() map[string]Spec {
	m := map[string]Spec{}
	for _, s := range append(requestSpecs(), responseSpecs()...) {
		if _, dup := m[s.Code]; dup {
			panic("sip2: two specs for " + s.Code)
		}
		m[s.Code] = s
	}
	return m
}

// Names of fixed fields that several messages share.
const (
	TransactionDate = "transaction date"
	NoBlock         = "no block"
	NbDueDate       = "nb due date"
	Language        = "language"
	PatronStatus    = "patron status"
	OK              = "ok"
)

func ids(s ...string) []string { return s }
