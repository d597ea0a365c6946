// Package importcheck holds no code. Its test lists the module's packages with `go list` and
// fails when an import breaks the house rules: the domain (the aggregates and the log they are
// written to) imports no adapter (no database, HTTP or migration package, directly or through
// another), no package that ships imports a test harness, and no import goes up or sideways
// between the layers written out in the test. docs/architecture.md draws the same layers.
package importcheck
