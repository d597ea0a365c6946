# The commands a newcomer needs. `make test` is the one command that runs every test.
.PHONY: run test lint build fmt clean

run: ## serve the API on :8080, in memory
	go run ./cmd/library

test: ## every test, PostgreSQL included (a throwaway cluster starts by itself), with the race detector
	@unformatted="$$(gofmt -l .)"; if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	go vet ./...
	go test -race -count=1 -timeout 20m ./...

lint: ## golangci-lint v2 with .golangci.yml (the first run builds it: a few minutes)
	go run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0 run ./...

build: ## a static binary in bin/
	CGO_ENABLED=0 go build -trimpath -o bin/library ./cmd/library

fmt:
	gofmt -w .

clean:
	rm -rf bin tmp
