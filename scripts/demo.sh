#!/usr/bin/env bash
# The local demo (make demo): a throwaway PostgreSQL, Mailpit, and two replicas of the service on
# loopback, sharing both. It prints where everything is and runs until Ctrl-C, which stops
# everything it started and removes everything it made (Mailpit's binary, built once into
# $(go env GOPATH)/bin, stays for the next time).
#
# Needs Go, curl and the PostgreSQL server binaries (Debian: apt-get install postgresql).
# Ports: DEMO_API_PORTS (default "8080 8081"), DEMO_PG_PORT (5434), DEMO_SMTP_PORT (1025),
# DEMO_MAILPIT_PORT (8025).
set -euo pipefail
cd "$(dirname "$0")/.."

read -r -a api_ports <<<"${DEMO_API_PORTS:-8080 8081}"
pg_port="${DEMO_PG_PORT:-5434}"
smtp_port="${DEMO_SMTP_PORT:-1025}"
web_port="${DEMO_MAILPIT_PORT:-8025}"

work="$(mktemp -d "${TMPDIR:-/tmp}/library-demo.XXXXXX")"
chmod 755 "$work" # the database server may run as another user (postgres, when this is root)
pids=()
cleanup() {
  trap - EXIT INT TERM
  echo
  echo "stopping..."
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  PGDIR="$work/pg" PGPORT="$pg_port" scripts/postgres.sh stop || true
  rm -rf "$work"
  echo "stopped, and $work removed"
}
trap cleanup EXIT INT TERM

wait_for() { # URL WHAT LOG
  for _ in $(seq 1 300); do
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "$2 did not come up; its log:" >&2
  tail -n 20 "$3" >&2
  exit 1
}

echo "building the service..."
CGO_ENABLED=0 go build -o "$work/library" ./cmd/library

mailpit="$(command -v mailpit || echo "$(go env GOPATH)/bin/mailpit")"
if [ ! -x "$mailpit" ]; then
  echo "building Mailpit (once; a couple of minutes)..."
  GOFLAGS= go install github.com/axllent/mailpit@v1.33.1
fi

echo "starting PostgreSQL on port $pg_port..."
eval "$(PGDIR="$work/pg" PGPORT="$pg_port" scripts/postgres.sh start)"

"$mailpit" --smtp "127.0.0.1:$smtp_port" --listen "127.0.0.1:$web_port" --database "$work/mailpit.db" \
  >"$work/mailpit.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$web_port/readyz" Mailpit "$work/mailpit.log"

export DATABASE_URL SMTP_URL="smtp://127.0.0.1:$smtp_port?tls=none" ADMIN_TOKEN="${ADMIN_TOKEN:-demo}"
export LOG_FORMAT=text
replica=a
for port in "${api_ports[@]}"; do
  HTTP_ADDR="127.0.0.1:$port" REPLICA_ID="$replica" "$work/library" >"$work/$replica.log" 2>&1 &
  pids+=($!)
  # One at a time: the first takes every lease, and the migrations run once.
  wait_for "http://127.0.0.1:$port/readyz" "replica $replica" "$work/$replica.log"
  replica=b
done

cat <<EOF

The library is running: two replicas on one PostgreSQL and one mail server.

  replica a    http://127.0.0.1:${api_ports[0]}        (logs: $work/a.log)
  replica b    http://127.0.0.1:${api_ports[1]}        (logs: $work/b.log)
  emails       http://127.0.0.1:$web_port        (Mailpit)
  database     $DATABASE_URL
  admin token  $ADMIN_TOKEN

Try it:
  curl -s -X PUT 127.0.0.1:${api_ports[0]}/accounts/alice -H 'Content-Type: application/json' -d '{"name":"Alice","email":"alice@example.org"}'
  curl -s -X POST 127.0.0.1:${api_ports[1]}/books -H 'Content-Type: application/json' -d '{"id":"dune","title":"Dune","author":"Frank Herbert"}'
  curl -s -X POST 127.0.0.1:${api_ports[1]}/books/dune/loans -H 'Content-Type: application/json' -d '{"loanId":"loan-1","memberId":"alice"}'
  curl -s 127.0.0.1:${api_ports[0]}/status
  scripts/smoke.sh http://127.0.0.1:${api_ports[0]} http://127.0.0.1:${api_ports[1]}

Ctrl-C stops everything.
EOF
wait "${pids[@]}"
