#!/usr/bin/env bash
# Runs every fuzz target of the module (each `func Fuzz...` in a _test.go file), one at a time,
# each for FUZZTIME (default 1m), and exits non-zero if any of them failed.
#
#   scripts/fuzz.sh
#   FUZZTIME=20s scripts/fuzz.sh
#
# Each new input is minimized for at most FUZZMINIMIZETIME (default 10s; go test's own default
# of 60s can take up most of a short run on an input of a few kilobytes).
#
# A failing input is written to the package's testdata/fuzz/<target>/. Commit it with the fix:
# from then on it runs with every `go test`, like the other seeds. The targets of packages whose
# tests use PostgreSQL (internal/app) start a throwaway cluster as their tests do.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${FUZZTIME:-1m}"
minimizetime="${FUZZMINIMIZETIME:-10s}"
ran=0
failed=()
for pkgdir in $(go list -f '{{.ImportPath}}={{.Dir}}' ./...); do
  pkg="${pkgdir%%=*}" dir="${pkgdir#*=}"
  for name in $({ grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null || true; } | sed 's/^func //' | sort -u); do
    echo "== $name ($pkg) for $fuzztime"
    ran=$((ran + 1))
    if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimizetime" "$pkg"; then
      failed+=("$name ($pkg)")
    fi
  done
done

if [ "$ran" -eq 0 ]; then
  echo "no fuzz targets found" >&2
  exit 1
fi
if [ "${#failed[@]}" -gt 0 ]; then
  echo "FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "all $ran fuzz targets passed"
