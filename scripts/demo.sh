#!/usr/bin/env bash
# The local demo (make demo): a throwaway PostgreSQL, Mailpit, an OpenID provider (cmd/devidp,
# with three users: alice, a member; libby, a librarian; oscar, an operator), a payment provider
# (cmd/devpay, a stand-in for Stripe with the demo's public test keys, whose webhooks go to both
# replicas) and two replicas of the service on loopback, sharing them; members pay fines online
# (PAYMENTS=stripe), and devpay's page sends them back to the first replica's web app. It checks
# its ports first and says which is taken; runs make build (bin/library, bin/devidp and
# bin/devpay, which it runs); prints where everything is, the commands to try
# (scripts/demo-commands.sh) and how to stop it; and runs until Ctrl-C (or a
# kill of this script), which stops everything it started, removes everything else it made
# (bin/ and Mailpit's binary, installed once where go install puts programs, stay for the next
# time) and exits 0 (so does make demo). When a part fails to start or stops on its own, it says which, shows the
# end of that part's log, keeps the logs and exits 1.
#
# Needs Go, make, curl and the PostgreSQL server binaries (Debian: apt-get install postgresql).
# Ports: DEMO_API_PORTS (default "8080 8081"), DEMO_SIP_PORTS ("6001 6002": each replica's
# SIP2 listener, for self-check kiosks, with a terminal demo-kiosk), DEMO_PG_PORT (5434),
# DEMO_SMTP_PORT (1025), DEMO_MAILPIT_PORT (8025), DEMO_IDP_PORT (9096), DEMO_PAY_PORT (9097).
set -euo pipefail

# Ctrl-C signals every process of the terminal's foreground process group. Run by make, this
# script shares that group with make, which then ends by the signal (status 130) however cleanly
# the demo stops. So the script runs itself again as a job of its own, which bash's job control
# makes the terminal's foreground group: Ctrl-C reaches this script alone, and make ends as it
# ends. bash hands the terminal over through stderr, so only when stderr is that terminal.
if [ -z "${DEMO_OWN_JOB:-}" ] && [ -t 2 ]; then
  if [ -r "/proc/$$/stat" ]; then # Linux: the 3rd and 6th fields after the command's name
    stat="$(<"/proc/$$/stat")"
    read -r _ _ group _ _ terminal_group _ <<<"${stat##*) }"
  else
    read -r group terminal_group < <(ps -o pgid= -o tpgid= -p $$ 2>/dev/null) || true
  fi
  if [ -n "${group:-}" ] && [ "$group" = "${terminal_group:-}" ] && [ "$group" != $$ ]; then
    DEMO_OWN_JOB=1 exec bash -c 'set -m; "$@"; exit $?' "$0" "$0" "$@"
  fi
fi
cd "$(dirname "$0")/.."

read -r -a api_ports <<<"${DEMO_API_PORTS:-8080 8081}"
read -r -a sip_ports <<<"${DEMO_SIP_PORTS:-6001 6002}"
pg_port="${DEMO_PG_PORT:-5434}"
smtp_port="${DEMO_SMTP_PORT:-1025}"
web_port="${DEMO_MAILPIT_PORT:-8025}"
idp_port="${DEMO_IDP_PORT:-9096}"
pay_port="${DEMO_PAY_PORT:-9097}"
# devpay's own defaults: public, like devidp's passwords, and for this demo only.
pay_key=sk_test_devpay pay_webhook_secret=whsec_devpay

# Every port must be free before anything starts: a port held by an earlier run would answer
# for a replica that never came up.
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if [ "${#api_ports[@]}" -ne 2 ] || [ "${#sip_ports[@]}" -ne 2 ]; then
  echo "DEMO_API_PORTS and DEMO_SIP_PORTS must each name two ports, such as \"9080 9081\"" >&2
  exit 1
fi
for entry in "${api_ports[0]} DEMO_API_PORTS" "${api_ports[1]} DEMO_API_PORTS" "$pg_port DEMO_PG_PORT" \
  "${sip_ports[0]} DEMO_SIP_PORTS" "${sip_ports[1]} DEMO_SIP_PORTS" \
  "$smtp_port DEMO_SMTP_PORT" "$web_port DEMO_MAILPIT_PORT" "$idp_port DEMO_IDP_PORT" "$pay_port DEMO_PAY_PORT"; do
  read -r port name <<<"$entry"
  if ! [[ "$port" =~ ^[0-9]+$ ]] || [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then
    echo "$name must be a port number from 1 to 65535, not \"$port\"" >&2
    exit 1
  fi
  if port_taken "$port"; then
    echo "port $port ($name) is already in use: stop what holds it, or give the demo another with $name" >&2
    exit 1
  fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/library-demo.XXXXXX")"
chmod 755 "$work" # the database server may run as another user (postgres, when this is root)
pids=()
failed=false
cleanup() {
  trap - EXIT
  trap '' INT TERM HUP # a second Ctrl-C, or the terminal closing, must not cut the cleanup short
  set +e               # nor must an echo to a terminal that is gone
  echo
  echo "stopping..."
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if $failed; then # PostgreSQL's own log goes with its directory: keep a copy
    cp "$work/pg/server.log" "$work/postgres-server.log" 2>/dev/null || true
  fi
  PGDIR="$work/pg" PGPORT="$pg_port" scripts/postgres.sh stop >/dev/null 2>&1 || true
  if $failed; then
    find "$work" -mindepth 1 -maxdepth 1 ! -name '*.log' -exec rm -rf {} +
    echo "stopped; the logs are kept in $work" >&2
    exit 1
  fi
  rm -rf "$work"
  echo "stopped, and $work removed"
}
trap cleanup EXIT
trap 'exit 0' INT TERM HUP

# start_part LOG COMMAND...: runs a part of the demo in the background, its output in LOG, in a
# process group of its own (job control, set -m) and reading nothing from the terminal. Ctrl-C,
# which the terminal sends to its foreground process group, never reaches it: this script's trap
# alone stops it, and the watches below never take a part stopped by Ctrl-C for one that failed.
start_part() {
  local log=$1
  shift
  set -m
  "$@" </dev/null >"$log" 2>&1 &
  set +m
  pids+=($!)
}

fail() { # MESSAGE LOG
  failed=true
  echo "$1; the end of its log ($2):" >&2
  tail -n 20 "$2" >&2
  exit 1
}

wait_for() { # URL WHAT LOG PID
  for _ in $(seq 1 300); do
    kill -0 "$4" 2>/dev/null || fail "$2 stopped as it started" "$3"
    curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  fail "$2 did not come up within 30 seconds" "$3"
}

# make build itself, so that its binaries and Go's build cache serve: a second of work when
# they are up to date (other build flags would compile everything again, for minutes).
echo "building bin/library, bin/devidp and bin/devpay (make build: seconds when they are up to date)..."
make --no-print-directory build

gobin="$(go env GOBIN)" # where go install puts it, as make tools does
mailpit="$(command -v mailpit || echo "${gobin:-$(go env GOPATH | cut -d: -f1)/bin}/mailpit")"
if [ ! -x "$mailpit" ]; then
  echo "installing Mailpit v1.33.1 into $(dirname "$mailpit"), once: Go downloads some 35 modules"
  echo "and compiles some 175 packages, naming each (2 to 4 minutes on two cores)..."
  started=$SECONDS
  GOFLAGS= go install -v github.com/axllent/mailpit@v1.33.1 2>&1 | sed -u 's/^/  mailpit: /'
  echo "Mailpit installed in $((SECONDS - started)) s; the next demo starts at once"
fi

echo "starting PostgreSQL on port $pg_port..."
if ! pg_env="$(PGDIR="$work/pg" PGPORT="$pg_port" scripts/postgres.sh start 2>"$work/postgres.log")"; then
  cat "$work/pg/server.log" >>"$work/postgres.log" 2>/dev/null || true
  fail "PostgreSQL did not start" "$work/postgres.log"
fi
eval "$pg_env"

start_part "$work/mailpit.log" "$mailpit" --smtp "127.0.0.1:$smtp_port" --listen "127.0.0.1:$web_port" \
  --database "$work/mailpit.db"
wait_for "http://127.0.0.1:$web_port/readyz" Mailpit "$work/mailpit.log" "${pids[-1]}"

start_part "$work/devidp.log" env DEVIDP_ADDR="127.0.0.1:$idp_port" bin/devidp
wait_for "http://127.0.0.1:$idp_port/.well-known/openid-configuration" "the OpenID provider" "$work/devidp.log" "${pids[-1]}"

# The payment provider tells every replica of each payment: each records it once.
webhooks=()
for port in "${api_ports[@]}"; do webhooks+=("http://127.0.0.1:$port/webhooks/stripe"); done
start_part "$work/devpay.log" env DEVPAY_ADDR="127.0.0.1:$pay_port" DEVPAY_WEBHOOK_URLS="$(IFS=,; echo "${webhooks[*]}")" \
  DEVPAY_SECRET_KEY="$pay_key" DEVPAY_WEBHOOK_SECRET="$pay_webhook_secret" bin/devpay
wait_for "http://127.0.0.1:$pay_port/pay/page.css" "the payment provider" "$work/devpay.log" "${pids[-1]}"

export DATABASE_URL SMTP_URL="smtp://127.0.0.1:$smtp_port?tls=none"
export ADMIN_TOKEN="${ADMIN_TOKEN:-demo-admin-token-for-this-machine-only}"
# Members' names and emails are sealed with data keys that this key wraps: the demo's own.
export PII_KEY="${PII_KEY:-$(head -c 32 /dev/urandom | base64)}"
export AUTH_ISSUER="http://127.0.0.1:$idp_port" AUTH_AUDIENCE=library AUTH_CLIENT_ID=library-web
export PAYMENTS=stripe STRIPE_API_URL="http://127.0.0.1:$pay_port" STRIPE_SECRET_KEY="$pay_key"
export STRIPE_WEBHOOK_SECRET="$pay_webhook_secret" PUBLIC_URL="http://127.0.0.1:${api_ports[0]}"
export LOG_FORMAT=text
replica=a
kiosk_password=
for i in 0 1; do
  port=${api_ports[$i]}
  # The operations page of each replica may watch the others, which allow its origin.
  others=()
  for other in "${api_ports[@]}"; do
    [[ $other == "$port" ]] || others+=("http://127.0.0.1:$other")
  done
  others_list=$(IFS=,; echo "${others[*]}")
  start_part "$work/$replica.log" env OPERATIONS_REPLICAS="$others_list" CORS_ORIGINS="$others_list" \
    HTTP_ADDR="127.0.0.1:$port" SIP_ADDR="127.0.0.1:${sip_ports[$i]}" REPLICA_ID="$replica" bin/library
  # One at a time: the first takes every lease, and the migrations run once.
  wait_for "http://127.0.0.1:$port/readyz" "replica $replica" "$work/$replica.log" "${pids[-1]}"
  if [ -z "$kiosk_password" ]; then # a terminal for the kiosks, once the schema is there
    kiosk_password="$(bin/library sip terminals add demo-kiosk 2>>"$work/$replica.log" | tail -n 1)" ||
      fail "the kiosk terminal could not be added" "$work/$replica.log"
  fi
  replica=b
done

cat <<EOF

The library is running: two replicas on one PostgreSQL, one mail server and one payment provider.

  replica a    http://127.0.0.1:${api_ports[0]}        (logs: $work/a.log)
  replica b    http://127.0.0.1:${api_ports[1]}        (logs: $work/b.log)
  emails       http://127.0.0.1:$web_port        (Mailpit)
  sign-in      $AUTH_ISSUER        (alice, a member; libby, a librarian; oscar, an operator)
  passwords    alice-password, libby-password, oscar-password
  kiosks       127.0.0.1:${sip_ports[0]}, 127.0.0.1:${sip_ports[1]}   (SIP2: terminal demo-kiosk, password $kiosk_password)
  payments     http://127.0.0.1:$pay_port        (devpay, a stand-in for Stripe; logs: $work/devpay.log)
               alice pays a fine in the web app: its Pay opens devpay's page, where Pay pays it (the
               commands below fine her). What devpay was asked and sent, with its test key:
               curl -s -u $pay_key: http://127.0.0.1:$pay_port/_devpay/sessions   (or deliveries, refunds)
  database     $DATABASE_URL
  admin token  $ADMIN_TOKEN
  logs         $work/*.log, and PostgreSQL's in $work/pg/server.log

Try it: each line as it is, in bash, from this directory. A token for a script is one curl;
the web page signs in on the provider's page, which lists its users.
$(scripts/demo-commands.sh "http://127.0.0.1:${api_ports[0]}" "http://127.0.0.1:${api_ports[1]}" "$AUTH_ISSUER" "$ADMIN_TOKEN" "http://127.0.0.1:$web_port" \
  "127.0.0.1:${sip_ports[0]}" "$kiosk_password")

To stop everything and remove what the demo made: Ctrl-C here, or from another shell
  kill $$
EOF

# Until Ctrl-C, or until one of them stops on its own: then say which, and keep the logs.
names=(Mailpit "the OpenID provider" "the payment provider" "replica a" "replica b")
logs=("$work/mailpit.log" "$work/devidp.log" "$work/devpay.log" "$work/a.log" "$work/b.log")
wait -n "${pids[@]}" || true
for i in "${!pids[@]}"; do
  if ! kill -0 "${pids[$i]}" 2>/dev/null; then
    fail "${names[$i]} stopped" "${logs[$i]}"
  fi
done
