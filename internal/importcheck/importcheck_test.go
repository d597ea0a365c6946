package importcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "library"

// layers are the module's packages that ship, from the top down: a package may import only
// packages of the layers below its own. Paths are relative to the module.
var layers = [][]string{
	{"cmd/library", "cmd/devidp", "cmd/devpay"},
	{"internal/app/catalogcli", "internal/app/admincli"},
	{"internal/app"},
	{"internal/metrics"},
	{"internal/books/booksapi", "internal/accounts/accountsapi", "internal/titles/titlesapi", "internal/processor/processorhttp",
		"internal/notifications/smtpmail", "internal/notifications/emailfacts",
		"internal/notifications/notificationspg", "internal/catalog/catalogpg", "internal/catalog/cataloghttp",
		"internal/loans/loanspg", "internal/loans/loanshttp", "internal/holds/holdspg", "internal/holds/holdshttp", "internal/kiosk",
		"internal/circulation/circulationhttp", "internal/calendar/calendarhttp"},
	{"internal/httpapi/commandhttp", "internal/catalog/catalogview"},
	{"internal/catalog", "internal/loans", "internal/holds", "internal/latefines", "internal/holdshelf", "internal/notifications", "internal/checkouts",
		"internal/adoption", "internal/shelves", "internal/duedates", "internal/lostloans", "internal/catalogimport"},
	{"internal/smtpclient", "internal/eventstore/pgstore", "internal/processor/pgdriver", "internal/devidp",
		"internal/payments/stripepay", "internal/devpay"},
	{"internal/telemetry", "internal/pgerr", "internal/openapi", "migrations", "web",
		"internal/devpay/hooks", "internal/devpay/wire", "internal/devpay/keys", "internal/devpay/page", "internal/devidp/keyring"},
	{"internal/books", "internal/accounts", "internal/titles", "internal/terminals"},
	// The circulation rules, which lending, renewing, holds and fines are decided by.
	{"internal/circulation"},
	// Below the domain, which reads them: the values it keeps unique, and the library's days
	// (an aggregate of its own, whose due times and late days the rules of loans are made of).
	{"internal/reservations", "internal/calendar"},
	{"internal/aggregate/stack"},
	{"internal/aggregate/core", "internal/aggregate/cache", "internal/aggregate/snapshots", "internal/aggregate/sealing",
		"internal/aggregate/eventlog"},
	{"internal/aggregate", "internal/processor/engine"},
	{"internal/processor/engine/timers", "internal/processor/engine/gate", "internal/processor/memdriver"},
	{"internal/processor", "internal/aggregate/window", "internal/aggregate/queue"},
	{"internal/eventstore"},
	{"internal/httpapi"},
	{"internal/auth", "internal/httpapi/strictjson"},
	// A MARC record read as a title with copies, its ISBNs read by package isbn.
	{"internal/marc/marcmap"},
	{"internal/validate", "internal/tracing", "internal/pii", "internal/payments", "internal/isbn", "internal/secrethash"},
	{"internal/errs", "internal/config", "internal/sip2", "internal/marc", "internal/notifications/slots"},
}

// plain are the packages that must stay plain Go: the domain (the service's rules, the
// aggregates that run them and the log they are kept in), the engine of the background work,
// whose drivers and handlers are adapters of their own, and the port to a payment provider,
// whose adapters (payments/stripepay) are too.
var plain = []string{"internal/books", "internal/accounts", "internal/titles", "internal/terminals", "internal/circulation", "internal/reservations", "internal/isbn", "internal/secrethash", "internal/sip2", "internal/marc", "internal/marc/marcmap", "internal/calendar",
	"internal/aggregate", "internal/eventstore",
	"internal/aggregate/core", "internal/aggregate/cache", "internal/aggregate/snapshots", "internal/aggregate/sealing",
	"internal/aggregate/eventlog", "internal/aggregate/stack", "internal/aggregate/queue",
	"internal/processor", "internal/processor/memdriver", "internal/processor/engine", "internal/processor/engine/timers", "internal/processor/engine/gate",
	"internal/payments", "internal/config", "internal/notifications", "internal/notifications/slots", "internal/catalog", "internal/loans", "internal/holds", "internal/catalogimport"}

// adapters are the import paths (and their subpackages) the domain must not reach, however
// indirectly: a database driver, an HTTP router or server, migrations, a payment provider's
// client.
var adapters = []string{"github.com/jackc/pgx", "github.com/go-chi/", "net/http", "github.com/pressly/goose",
	"github.com/stripe/"}

// tooling are the module's packages that never ship: test harnesses, the fault suite, the
// mutation tool and the checks themselves. They may import anything; nothing that ships may
// import a harness.
var tooling = []string{"internal/testkit/", "internal/importcheck", "internal/sqlcheck", "faults", "upgrade", "scripts/"}

// harnesses are the test harnesses.
const harnesses = "internal/testkit/"

// pkg is what `go list` says of one package.
type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Error      *struct{ Err string }
}

// list runs `go list` on the module from its root, errors and all, so that an import cycle
// made by a bad import is seen as the import it is.
func list(t *testing.T) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-deps=false", "-json=ImportPath,Imports,Deps,Error", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list: %v\n%s", err, exit.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]pkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")] = p
	}
	return pkgs
}

// local is the module-relative path of an import path of the module, and whether it is one.
func local(path string) (string, bool) {
	if path == module {
		return "", true
	}
	rest, ok := strings.CutPrefix(path, module+"/")
	return rest, ok
}

func layerOf(path string) int {
	for i, layer := range layers {
		if slices.Contains(layer, path) {
			return i
		}
	}
	return -1
}

func isTooling(path string) bool {
	return slices.ContainsFunc(tooling, func(prefix string) bool {
		return path == strings.TrimSuffix(prefix, "/") || strings.HasPrefix(path, prefix)
	})
}

// Every package of the module has a place: a layer, or the tooling.
func TestEveryPackageHasAPlace(t *testing.T) {
	t.Parallel()
	pkgs := list(t)
	for path := range pkgs {
		if layerOf(path) < 0 && !isTooling(path) {
			t.Errorf("%s is in no layer of this test: put it in one (and in docs/architecture.md)", path)
		}
	}
	for _, layer := range layers {
		for _, path := range layer {
			if _, ok := pkgs[path]; !ok {
				t.Errorf("%s is in a layer but is not a package of the module", path)
			}
		}
	}
}

// A package that ships imports only packages of the layers below its own.
func TestImportsGoDown(t *testing.T) {
	t.Parallel()
	for path, p := range list(t) {
		from := layerOf(path)
		if from < 0 {
			continue
		}
		for _, imported := range p.Imports {
			to, ok := local(imported)
			if !ok {
				continue
			}
			if at := layerOf(to); at <= from {
				t.Errorf("%s imports %s, which is not below it (layers %d and %d, from the top)", path, to, from, at)
			}
		}
	}
}

// Nothing that ships reaches a test harness, directly or through another package.
func TestNothingThatShipsImportsAHarness(t *testing.T) {
	t.Parallel()
	for path, p := range list(t) {
		if isTooling(path) {
			continue
		}
		for _, dep := range p.Deps {
			if to, ok := local(dep); ok && strings.HasPrefix(to, harnesses) {
				t.Errorf("%s imports the test harness %s", path, to)
			}
		}
	}
}

// wiring are the packages that put the service, and its commands, together: they may import
// any adapter.
var wiring = []string{"internal/app", "internal/app/catalogcli", "internal/app/admincli", "cmd/library", "cmd/devidp", "cmd/devpay"}

// isPostgreSQLCode reports whether a package speaks to PostgreSQL itself: it imports pgx.
func isPostgreSQLCode(p pkg) bool {
	return slices.ContainsFunc(p.Imports, func(imported string) bool { return strings.HasPrefix(imported, "github.com/jackc/pgx") })
}

// A feature's PostgreSQL code (catalog/catalogpg, notifications/notificationspg, the log's
// pgstore, ...) is one adapter, as its HTTP code is another: only the wiring, and other
// PostgreSQL code, import it. An HTTP handler or a feature's core that imported it would tie
// that feature to the database, and another feature to this one's tables.
func TestPostgreSQLCodeIsImportedOnlyByTheWiring(t *testing.T) {
	t.Parallel()
	pkgs := list(t)
	for path, p := range pkgs {
		if isTooling(path) || slices.Contains(wiring, path) || isPostgreSQLCode(p) {
			continue
		}
		for _, imported := range p.Imports {
			to, ok := local(imported)
			if ok && isPostgreSQLCode(pkgs[to]) {
				t.Errorf("%s imports %s, PostgreSQL code, which only the wiring (%s) may put in", path, to, strings.Join(wiring, ", "))
			}
		}
	}
}

// leaves are packages that every other may read, and so import none of the module's but these:
// configuration reads its variables and knows every package's defaults (package config), and
// the packages that take those defaults read them from it, never the other way round.
var leaves = map[string][]string{"internal/config": {"internal/errs", "internal/validate"}}

// A leaf imports none of the module's packages but those it is allowed.
func TestLeavesImportNothingOfTheModule(t *testing.T) {
	t.Parallel()
	pkgs := list(t)
	for path, allowed := range leaves {
		p, ok := pkgs[path]
		if !ok {
			t.Errorf("%s: no such package", path)
			continue
		}
		for _, imported := range p.Imports {
			if to, ok := local(imported); ok && !slices.Contains(allowed, to) {
				t.Errorf("%s imports %s: a leaf imports none of the module's packages but %s", path, to, strings.Join(allowed, " and "))
			}
		}
	}
}

// The plain packages reach no adapter, however indirectly: their Deps hold no database driver,
// HTTP package or migration tool.
func TestThePlainPackagesImportNoAdapter(t *testing.T) {
	t.Parallel()
	pkgs := list(t)
	for _, path := range plain {
		p, ok := pkgs[path]
		if !ok {
			t.Errorf("%s: no such package", path)
			continue
		}
		if p.Error != nil {
			t.Errorf("%s: %s", path, p.Error.Err)
		}
		for _, adapter := range adapters {
			root := strings.TrimSuffix(adapter, "/")
			for _, dep := range p.Deps {
				if dep != root && !strings.HasPrefix(dep, root+"/") {
					continue
				}
				// Name the first one the module's code imports itself, with the chain to it.
				if via := chain(pkgs, path, dep); via != "" {
					t.Errorf("%s reaches the adapter %s: %s", path, dep, via)
					break
				}
			}
		}
	}
}

// chain is a path of imports from one package of the module to a dependency, for the message.
func chain(pkgs map[string]pkg, from, dep string) string {
	seen := map[string]bool{}
	var walk func(path string) []string
	walk = func(path string) []string {
		p, ok := pkgs[path]
		if !ok || seen[path] {
			return nil
		}
		seen[path] = true
		for _, imported := range p.Imports {
			if imported == dep {
				return []string{path, dep}
			}
			if to, ok := local(imported); ok {
				if rest := walk(to); rest != nil {
					return append([]string{path}, rest...)
				}
			}
		}
		return nil
	}
	return strings.Join(walk(from), " → ")
}
