#!/usr/bin/env bash
# Smoke test of a running deployment: plays the two stories the service is built around and
# exits non-zero at the first wrong answer.
#
#   scripts/smoke.sh BASE_URL [BASE_URL2]
#
# With two URLs (two replicas behind no load balancer, such as the local demo), retries go to
# the second one, and /status of both must show exactly one holder for each processor the
# first lists (checkouts too, with payments online). The payment it takes is at the desk, as
# the librarian: it works with payments online on or off, and never charges anyone. With
# MAILPIT_URL set (Mailpit's web address), the loan email must arrive there exactly once.
# With sign-in on, SMOKE_TOKEN is a librarian's access token for every request, and
# ADMIN_TOKEN (or an operator's token) reads /status; with sign-in off neither is needed. The
# local demo prints this command with both (scripts/demo-commands.sh shows how to get a token).
# Every run uses ids of its own, so it can run again and again against one deployment.
# Needs bash and curl.
set -euo pipefail

first="${1:?usage: $0 BASE_URL [BASE_URL2]}"
second="${2:-$first}"
first="${first%/}" second="${second%/}"
run="smoke-$(date +%s)-$$-$RANDOM"
member="$run"

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

# request METHOD URL [BODY] [HEADER...]: sets status, headers and body.
request() {
  local method="$1" url="$2" data="${3:-}"
  shift 3 || shift $#
  local args=(-sS -X "$method" -D "$tmp/headers" -o "$tmp/body" -w '%{http_code}' --max-time 15)
  [ -n "$data" ] && args+=(-H 'Content-Type: application/json' --data-binary "$data")
  local authorized=false
  for h in "$@"; do
    args+=(-H "$h")
    case "$h" in Authorization:*) authorized=true ;; esac
  done
  if ! $authorized && [ -n "${SMOKE_TOKEN:-}" ]; then args+=(-H "Authorization: Bearer $SMOKE_TOKEN"); fi
  status="$(curl "${args[@]}" "$url")" || fail "$method $url: no answer"
  headers="$(tr -d '\r' <"$tmp/headers")"
  body="$(cat "$tmp/body")"
}

expect_status() { [ "$status" = "$1" ] || fail "$2: want $1, got $status: $body$(hint)"; }
# hint: what a refusal with sign-in on most likely means.
hint() {
  case "$status" in
  401) printf '\n(sign-in is on: SMOKE_TOKEN must be a librarian'"'"'s access token, as scripts/demo-commands.sh gets one)' ;;
  403) printf '\n(SMOKE_TOKEN must be a librarian'"'"'s token; /status also needs ADMIN_TOKEN, the service'"'"'s, or an operator'"'"'s token)' ;;
  esac
}
expect_body() { case "$body" in *"$1"*) ;; *) fail "$2: want $1 in $body" ;; esac; }
expect_header() { grep -qi "^$1" <<<"$headers" || fail "$2: want header $1, got: $headers"; }
# field NAME: the first number value of "NAME": in the body.
field() { grep -o "\"$1\":-\?[0-9]*" <<<"$body" | head -n 1 | cut -d: -f2; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

for base in "$first" "$second"; do
  request GET "$base/readyz"
  expect_status 200 "GET $base/readyz"
done
ok "both ready"

# --- I clicked twice: a payment retried with its key is recorded once ----------------------
for book in Dune Neuromancer; do
  request POST "$first/accounts/$member/fines" "{\"amount\":300,\"reason\":\"$book, 10 days late\"}"
  expect_status 201 "fine for $book"
done
request POST "$first/accounts/$member/payments" '{"amount":300}' "Idempotency-Key: $run-pay"
expect_status 201 "payment"
payment="$body"
grep -qi '^Idempotent-Replayed' <<<"$headers" && fail "the first payment is not a replay"
request POST "$second/accounts/$member/payments" '{"amount":300}' "Idempotency-Key: $run-pay"
expect_status 201 "retried payment"
expect_header "Idempotent-Replayed: true" "retried payment"
[ "$body" = "$payment" ] || fail "the retry's body differs from the first answer: $body vs $payment"
ok "a retried payment gets the first answer, byte for byte"

request POST "$second/accounts/$member/payments" '{"amount":500}' "Idempotency-Key: $run-pay"
expect_status 422 "the key with another payload"
expect_body '"code":"IdempotencyKeyReused"' "the key with another payload"
request POST "$first/accounts/$member/payments" '{"amount":300}'
expect_status 400 "a payment without a key"
expect_body '"code":"IdempotencyKeyMissing"' "a payment without a key"
request GET "$second/accounts/$member"
expect_status 200 "the account"
[ "$(field balance)" = 300 ] || fail "balance: want 300, got $body"
[ "$(field version)" = 3 ] || fail "version: want 3 (two fines, one payment), got $body"
ok "paid once: the balance is 300"

# --- Two pods, two emails: one holder per processor, one email per loan --------------------
# holders_problem sets problem to what is wrong with who holds the leases, as the pods' /status
# say now, or to nothing, and running to the processors, and builds of views, that one pod runs. Every
# processor, and every build of a view (view@n), has one holder; a retired build (a newer one
# answers) runs nowhere until it is dropped, and neither does the build a release before made
# while its successor builds, just after a release's first start.
holders_problem() {
  local statuses=() base processors processor holders retired entry status
  problem=""
  for base in "$first" "$second"; do
    if [ -n "${ADMIN_TOKEN:-}" ]; then
      request GET "$base/status" "" "Authorization: Bearer $ADMIN_TOKEN"
    else
      request GET "$base/status"
    fi
    expect_status 200 "GET $base/status"
    statuses+=("$body")
  done
  processors="$(grep -o '"name":"[a-z0-9@-]*","kind"' <<<"${statuses[0]}" | cut -d'"' -f4 | paste -sd ' ')"
  [ -n "$processors" ] || fail "GET $first/status lists no processor: ${statuses[0]}"
  running=()
  for processor in $processors; do
    holders=0
    retired=false
    for status in "${statuses[@]}"; do
      entry="$(grep -o "\"name\":\"$processor\"[^}]*" <<<"$status" || true)"
      grep -q '"holdsLease":true' <<<"$entry" && holders=$((holders + 1))
      grep -q '"state":"retired"' <<<"$entry" && retired=true
    done
    "$retired" && continue
    if [ "$holders" != 1 ]; then
      problem="$processor: $holders replicas hold its lease, want exactly 1"
      return
    fi
    running+=("$processor")
  done
}

if [ "$second" != "$first" ]; then
  # Just after a start, a view's new build may still be catching up: look again, for a while.
  for _ in $(seq 30); do
    holders_problem
    [ -z "$problem" ] && break
    sleep 1
  done
  [ -z "$problem" ] || fail "$problem"
  ok "exactly one holder per processor (${running[*]})"
fi

request PUT "$first/accounts/$member" "{\"name\":\"Smoke Test\",\"email\":\"$run@example.org\"}"
expect_status 201 "contact"
request POST "$first/books" "{\"id\":\"$run\",\"title\":\"Smoke $run\",\"author\":\"A. Tester\"}"
expect_status 201 "add book"
request POST "$second/books/$run/loans" "{\"loanId\":\"$run-loan\",\"memberId\":\"$member\"}"
expect_status 201 "lend"
position="$(field position)"
request POST "$first/books/$run/loans" "{\"loanId\":\"$run-loan\",\"memberId\":\"$member\"}"
expect_status 200 "lend again under the same loan"
for base in "$first" "$second"; do
  request GET "$base/books?status=lent&minPosition=$position"
  expect_status 200 "the catalog on $base"
  expect_body "\"id\":\"$run\"" "the catalog on $base"
done
ok "the loan is in the catalog on every replica"

if [ -n "${MAILPIT_URL:-}" ]; then
  count=0
  for _ in $(seq 1 100); do
    request GET "${MAILPIT_URL%/}/api/v1/search?query=to:$run@example.org"
    count="$(grep -o '"messages_count":[0-9]*' <<<"$body" | cut -d: -f2)"
    [ "${count:-0}" -ge 1 ] && break
    sleep 0.1
  done
  [ "${count:-0}" = 1 ] || fail "loan emails to $run@example.org in Mailpit: want 1, got ${count:-0}"
  ok "one loan email in Mailpit"
fi
echo "smoke test passed ($run)"
