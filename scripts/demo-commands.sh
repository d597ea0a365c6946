#!/usr/bin/env bash
# The commands the local demo (scripts/demo.sh) suggests once it is up, printed for the
# deployment given: each line runs as printed, in order, from the repository's root, in bash.
# cmd/library's tests run them against two replicas and a provider of their own, and check that
# docs/operations.md shows the same smoke command as the demo prints.
#
#   scripts/demo-commands.sh REPLICA_A_URL REPLICA_B_URL ISSUER_URL ADMIN_TOKEN [MAILPIT_URL [SIP_ADDR TERMINAL_PASSWORD]]
#
# The sample loan goes to alice, a member who may not have signed in yet: the librarian gives
# her an address first, so that her loan email has somewhere to go. Then the librarian fines her
# and she pays online (the demo's replicas take payments through devpay): her checkout's url is
# the provider's page, whose Pay button curl presses as a browser would, and the provider's
# webhook, sent to both replicas, records her payment once. The page needs no key, so these
# lines need no more than the replicas' URLs. Given a SIP listener (host:port) and the password
# of its terminal demo-kiosk, the librarian gives alice a library card, she sets her PIN, and a
# kiosk, played by printf and nc, logs in and checks a copy out to her, twice: one loan, and the
# same answer twice.
set -euo pipefail

a="${1:?usage: $0 REPLICA_A_URL REPLICA_B_URL ISSUER_URL ADMIN_TOKEN [MAILPIT_URL]}"
b="${2:?usage: $0 REPLICA_A_URL REPLICA_B_URL ISSUER_URL ADMIN_TOKEN [MAILPIT_URL]}"
issuer="${3:?usage: $0 REPLICA_A_URL REPLICA_B_URL ISSUER_URL ADMIN_TOKEN [MAILPIT_URL]}"
admin="${4:?usage: $0 REPLICA_A_URL REPLICA_B_URL ISSUER_URL ADMIN_TOKEN [MAILPIT_URL]}"
mailpit="${5:-}"
sip="${6:-}"
terminal_password="${7:-}"
json="-H 'Content-Type: application/json'"

cat <<EOF
  token() { curl -s -u "\$1:\$1-password" -d grant_type=client_credentials $issuer/oauth/token | sed 's/.*"access_token":"\([^"]*\)".*/\1/'; }
  LIBBY=\$(token libby)
  curl -s -w ' %{http_code}\n' -X PUT $a/accounts/alice -H "Authorization: Bearer \$LIBBY" $json -d '{"name":"Alice Member","email":"alice@example.org"}'
  curl -s -w ' %{http_code}\n' -X POST $b/books -H "Authorization: Bearer \$LIBBY" $json -d '{"id":"dune","title":"Dune","author":"Frank Herbert"}'
  curl -s -w ' %{http_code}\n' -X POST $b/books/dune/loans -H "Authorization: Bearer \$LIBBY" $json -d '{"loanId":"loan-1","memberId":"alice"}'
  field() { sed "s/.*\\"\$1\\":\\"\\([^\\"]*\\)\\".*/\\1/" <<<"\$2"; }   # a text field of a JSON answer
  ALICE=\$(token alice)
  curl -s -w ' %{http_code}\n' -X POST $a/accounts/alice/fines -H "Authorization: Bearer \$LIBBY" $json -d '{"amount":300,"reason":"A torn page"}'
  CHECKOUT=\$(curl -s -w ' %{http_code}' -X POST $b/accounts/alice/checkouts -H "Authorization: Bearer \$ALICE" $json -H 'Idempotency-Key: demo-pay-1' -d '{"amount":300}'); echo "\$CHECKOUT"
  curl -s -w '%{http_code} %{redirect_url}\n' -d action=pay "\$(field url "\$CHECKOUT")"   # Pay on the provider's page, which sends alice back
  curl -s -w ' %{http_code}\n' $a/accounts/alice/checkouts/\$(field checkoutId "\$CHECKOUT") -H "Authorization: Bearer \$ALICE"
EOF
if [ -n "$sip" ]; then
  checkout='11NN20261205    120000                  AOlibrary|AA21000001|AB31234000000017|AC|AD1234|'
  cat <<EOF
  curl -s -w ' %{http_code}\n' -X PUT $a/accounts/alice/card -H "Authorization: Bearer \$LIBBY" $json -d '{"cardNumber":"21000001"}'
  curl -s -w ' %{http_code}\n' -X PUT $b/accounts/alice/pin -H "Authorization: Bearer \$ALICE" $json -d '{"pin":"1234"}'
  curl -s -w ' %{http_code}\n' -X POST $a/titles -H "Authorization: Bearer \$LIBBY" $json -d '{"id":"hobbit","title":"The Hobbit","authors":["J. R. R. Tolkien"]}'
  curl -s -w ' %{http_code}\n' -X POST $a/titles/hobbit/copies -H "Authorization: Bearer \$LIBBY" $json -d '{"id":"hobbit-1","barcode":"31234000000017"}'
  CHECKOUT='$checkout'   # SIP2: a checkout of the copy to alice's card, with her PIN
  printf '9300CNdemo-kiosk|CO%s|\r%s\r%s\r' '$terminal_password' "\$CHECKOUT" "\$CHECKOUT" | nc -N ${sip%:*} ${sip##*:} | tr '\r' '\n'
EOF
fi
cat <<EOF
  curl -s -w '\n' -H "Authorization: Bearer $admin" $a/status
  SMOKE_TOKEN=\$(token libby) ADMIN_TOKEN=$admin scripts/smoke.sh $a $b
EOF
if [ -n "$mailpit" ]; then
  echo "  # with MAILPIT_URL=$mailpit in front, the smoke test also checks its loan email arrived once"
fi
