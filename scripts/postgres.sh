#!/usr/bin/env bash
# A throwaway local PostgreSQL for trying the service: `start` creates a cluster under ./tmp/pg
# and prints the DATABASE_URL to use; `stop` stops it and deletes it.
# Needs the PostgreSQL server binaries (Debian: apt-get install postgresql).
set -euo pipefail

dir="${PGDIR:-$(pwd)/tmp/pg}"
port="${PGPORT:-5433}"
bin="$(dirname "$(readlink -f "$(command -v initdb 2>/dev/null || ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -n 1)")")"
[ -x "$bin/initdb" ] || { echo "no initdb found: install the PostgreSQL server binaries" >&2; exit 1; }

# PostgreSQL refuses to run as root: run it as the postgres user then.
as_server() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case "${1:-}" in
start)
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as_server "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --locale=C --no-instructions >/dev/null
  fi
  as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1" start >/dev/null
  as_server "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres library 2>/dev/null || true
  echo "export DATABASE_URL='postgres://postgres@127.0.0.1:$port/library?sslmode=disable'"
  ;;
stop)
  [ -d "$dir/data" ] && as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start|stop" >&2
  exit 2
  ;;
esac
