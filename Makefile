# The commands a newcomer needs. `make test` is the one command that runs every test.
.PHONY: run test tools faults upgrade fuzz lint bench mutate build demo smoke screenshots fmt clean

run: ## serve the API on 127.0.0.1:8080, in memory, without sign-in
	go run ./cmd/library

# Where go install puts programs; on PATH for the tests, which run stripe-mock from there.
GOBIN_DIR := $(or $(shell go env GOBIN),$(shell go env GOPATH)/bin)
export PATH := $(GOBIN_DIR):$(PATH)
STRIPE_MOCK = github.com/stripe/stripe-mock@v0.203.0
MAILPIT = github.com/axllent/mailpit@v1.33.1

tools: ## install the programs the tests run that come from the Go module proxy, when missing: stripe-mock, Stripe's mock of its API (about a minute the first time), and Mailpit, which the demo runs (2 to 4 minutes the first time)
	@command -v stripe-mock >/dev/null || { echo "go install $(STRIPE_MOCK)"; go install $(STRIPE_MOCK); }
	@command -v mailpit >/dev/null || { echo "go install $(MAILPIT)"; GOFLAGS= go install $(MAILPIT); }

# The fault suite: its command, and the lines of faults.log that make prints.
FAULTS_RUN = go test -tags faults -count=1 -timeout 30m -v ./faults/ > faults.log 2>&1
FAULTS_SHOW = grep -E '^(=== RUN|--- |PASS|FAIL|ok)|FAULTS|_test.go:[0-9]+: [^{]' faults.log
# The upgrade suite: its command, and what make prints of upgrade.log: its test's lines, or all
# of it when it failed (a release it could not fetch or build says so there).
UPGRADE_RUN = go test -tags upgrade -count=1 -timeout 15m -v ./upgrade/ > upgrade.log 2>&1
UPGRADE_SHOW = grep -E '^(=== RUN|--- |PASS|FAIL|ok)' upgrade.log

# The packages whose tests take longest, named first so that go test starts them first (it runs
# packages in the order given, two at a time on two cores) rather than last, alone, at the end.
LONGEST_FIRST = ./web/ ./internal/app/ ./cmd/library/ ./internal/catalog/
test: tools ## every test, PostgreSQL included (a throwaway cluster starts by itself), with the race detector, then the deployment's and the benchmark's modules; the fault suite and the upgrade suite run beside them (their output in faults.log and upgrade.log, shown at the end)
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	go vet -tags faults ./faults/
	go vet -tags upgrade ./upgrade/
	@echo "$(FAULTS_RUN) &"; $(FAULTS_RUN) & faults=$$!; \
	  echo "$(UPGRADE_RUN) &"; $(UPGRADE_RUN) & upgrade=$$!; \
	  echo "go test -race -count=1 -timeout 20m $(LONGEST_FIRST) ./..."; go test -race -count=1 -timeout 20m $(LONGEST_FIRST) ./... && \
	  echo "cd deploy && go vet ./... && go test -count=1 -timeout 20m ./..." && \
	  (cd deploy && go vet ./... && go test -count=1 -timeout 20m ./...) && \
	  echo "cd bench && go vet ./... && go build -o /dev/null ." && (cd bench && go vet ./... && go build -o /dev/null .); \
	  status=$$?; echo "waiting for the upgrade suite..."; wait $$upgrade; upgrade_status=$$?; \
	  if [ $$upgrade_status -eq 0 ]; then $(UPGRADE_SHOW); else cat upgrade.log; fi; \
	  echo "waiting for the fault suite..."; wait $$faults; faults_status=$$?; $(FAULTS_SHOW); \
	  [ $$status -eq 0 ] && [ $$upgrade_status -eq 0 ] && [ $$faults_status -eq 0 ]

faults: ## the fault suite alone: two processes of the binary, PostgreSQL and SMTP, broken on purpose (about 8 minutes, the import killed three times the longest; full output in faults.log)
	go vet -tags faults ./faults/
	@$(FAULTS_RUN); status=$$?; $(FAULTS_SHOW); exit $$status

upgrade: ## the upgrade suite alone (make test runs it too): the release before, built from the repository's history (fetched from origin into a shallow clone), writes a log that this build must read and carry on (a few minutes the first time, as it builds that release; under a minute after)
	go vet -tags upgrade ./upgrade/
	go test -tags upgrade -count=1 -timeout 15m -v ./upgrade/

fuzz: ## each fuzz target for FUZZTIME (default 1m); their seed corpora already run in make test
	scripts/fuzz.sh

GOLANGCI_LINT = go run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0

lint: ## golangci-lint v2 with .golangci.yml, on the service, the deployment's tests and the benchmark (the first run builds it: a few minutes)
	$(GOLANGCI_LINT) run --build-tags faults,upgrade ./...
	cd deploy && $(GOLANGCI_LINT) run --config ../.golangci.yml ./...
	cd bench && $(GOLANGCI_LINT) run --config ../.golangci.yml ./...

mutate: ## small bugs made on purpose in the code that keeps the promises, one at a time: each must fail its package's tests (about half an hour; see docs/testing.md)
	go run ./scripts/mutate

bench: ## the benchmark, written to docs/benchmarks.md (about half an hour, a million-record import included; see docs/testing.md)
	cd bench && go run .

demo: ## make build, then PostgreSQL, Mailpit (its first install takes minutes), an OpenID provider, a payment provider (devpay) and two replicas that take payments through it, on loopback; Ctrl-C stops and removes them
	scripts/demo.sh

smoke: ## the smoke test against a running deployment: make smoke URLS="http://127.0.0.1:8080 http://127.0.0.1:8081"
	scripts/smoke.sh $(or $(URLS),http://127.0.0.1:8080)

screenshots: ## the web app's pages as PNGs in docs/ (screenshot-*.png), taken by its browser tests
	SCREENSHOTS=docs go test -count=1 -run 'TestPayDoubleClickRecordsOnePayment|TestLendShowsInTheCatalogAtOnce|TestOperationsShowsTheHolderAndTheTakeover|TestMemberPaysOnTheProvidersPage|TestMemberRenewsOnceOnADoubleClick|TestLibrarianSeesOverdueLoans|TestMemberPlacesAHoldOnceAndCancelsIt|TestHoldShelfPickup|TestLibrarianEditsTheRulesGrid|TestLibrarianClosesADayInTheMonthView' ./web/

build: ## static binaries in bin/: the service, devidp, an OpenID provider for demos, and devpay, a payment provider for demos
	CGO_ENABLED=0 go build -trimpath -o bin/library ./cmd/library
	CGO_ENABLED=0 go build -trimpath -o bin/devidp ./cmd/devidp
	CGO_ENABLED=0 go build -trimpath -o bin/devpay ./cmd/devpay

fmt:
	gofmt -w .

clean:
	rm -rf bin tmp
