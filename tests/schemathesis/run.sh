#!/usr/bin/env bash
# Schemathesis against the service, once per role (client, driver, super admin), each over that role's
# operations. Not part of `npm test`: the Python tool is not a project dependency. See docs/schemathesis.md.
#
#   SCHEMATHESIS=/path/to/venv/bin/schemathesis tests/schemathesis/run.sh [extra schemathesis options]
#
# Starts the service in memory on $PORT (default 3999) with the request limits off, signs in a client, a
# driver and a bootstrapped super admin (development routes), and writes each pass's JUnit report and
# output under $OUT (default a temporary directory); PASSES picks some of the five passes. The checks the
# tool cannot judge here are set aside in schemathesis.toml beside this script. Exit status: 0 when all
# three passes found nothing.
set -uo pipefail
cd "$(dirname "$0")/../.."
ST=$(realpath "${SCHEMATHESIS:?set SCHEMATHESIS to the schemathesis executable (see docs/schemathesis.md)}")
PORT=${PORT:-3999}
OUT=$(realpath "${OUT:-$(mktemp -d)}")
BASE="http://127.0.0.1:$PORT/api/v1"
EXAMPLES=${EXAMPLES:-20}
# The checks it cannot judge here, set aside with their reasons.
CONFIG=$(realpath tests/schemathesis/schemathesis.toml)
ADMIN_EMAIL=schemathesis@example.com
ADMIN_PASSWORD='Schemathesis-Pass-1'

EMBEDDED_DB_DIR=memory:// APP_ENV=development LOG_LEVEL=${LOG_LEVEL:-warn} PORT=$PORT HOST=127.0.0.1 \
  OTP_RATE_LIMIT=false ADMIN_AUTH_RATE_LIMIT=false STATION_RATE_LIMIT=false \
  ADMIN_BOOTSTRAP_EMAIL=$ADMIN_EMAIL ADMIN_BOOTSTRAP_PASSWORD=$ADMIN_PASSWORD \
  node --import tsx app/main.ts >"$OUT/service.log" 2>&1 &
SERVICE=$!
trap 'kill $SERVICE 2>/dev/null; wait $SERVICE 2>/dev/null' EXIT
for _ in $(seq 1 120); do curl -sf "$BASE/ready" >/dev/null && break; sleep 1; done
curl -sf "$BASE/ready" >/dev/null || { echo "the service did not start; see $OUT/service.log"; exit 2; }

# One field of a JSON answer, or nothing (a missing field must not become the word "undefined").
json() { node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(eval('('+s+')')$1 ?? ''))"; }
app_token() { # phone app
  local code
  code=$(curl -sf -X POST "$BASE/auth/otp/request" -H 'content-type: application/json' \
    -d "{\"phone\":\"$1\"}" | json .code)
  curl -sf -X POST "$BASE/auth/otp/verify" -H 'content-type: application/json' \
    -d "{\"phone\":\"$1\",\"code\":\"$code\",\"app\":\"$2\"}" | json .token
}
CLIENT=$(app_token +584120000001 client)
DRIVER=$(app_token +584120000002 driver)
ADMIN=$(curl -sf -X POST "$BASE/admin/auth/login" -H 'content-type: application/json' \
  -d "{\"email\":\"$ADMIN_EMAIL\",\"password\":\"$ADMIN_PASSWORD\"}" | json .access_token)
[ -n "$CLIENT" ] && [ -n "$DRIVER" ] && [ -n "$ADMIN" ] || { echo "could not sign in the three roles"; exit 2; }

# Operation ids by role, from each operation's x-roles (the roles its guards admit) or, without them, its
# security (public, app token, admin JWT). Sign-out and token renewal end the token: they run last, alone.
curl -sf "$BASE/openapi.json" >"$OUT/openapi.json"
ops() { # CLIENT | DRIVER | SUPER_ADMIN | ENDINGS-APP | ENDINGS-ADMIN
  node -e "
    const doc = require('$OUT/openapi.json'); const role = '$1'; const ends = /^post(Admin)?Auth(Logout|Refresh)/;
    const ids = [];
    for (const item of Object.values(doc.paths)) for (const op of Object.values(item)) {
      const roles = op['x-roles']; const sec = (op.security ?? []).map((s) => Object.keys(s)[0]);
      const admin = sec.includes('adminJwt'), app = sec.includes('appToken');
      if (role.startsWith('ENDINGS')) {
        if (ends.test(op.operationId) && (role === 'ENDINGS-ADMIN' ? admin : app)) ids.push(op.operationId);
        continue;
      }
      if (ends.test(op.operationId)) continue;
      const mine = roles
        ? roles.includes(role) || (role === 'SUPER_ADMIN' && roles.includes('ADMIN'))
        : !sec.length ? role === 'CLIENT' : app || role === 'SUPER_ADMIN';
      if (mine) ids.push(op.operationId);
    }
    console.log(ids.map((id) => '--include-operation-id=' + id).join(' '));"
}

status=0
PASSES=${PASSES:-client driver admin endings-app endings-admin}
run() { # name token role
  [[ " $PASSES " == *" $1 "* ]] || return 0
  echo "== $1"
  # shellcheck disable=SC2046
  # From $OUT, so that the tool's cache (.schemathesis/) lands there and not in the repository; the document
  # is the one fetched above (building it on request can outlast the tool's timeout on a busy machine).
  (cd "$OUT" && "$ST" --config-file "$CONFIG" run "$OUT/openapi.json" --url "$BASE" -H "Authorization: Bearer $2" $(ops "$3") \
    --max-examples "$EXAMPLES" --seed 1 --request-timeout 10 --workers 1 --generation-allow-x00 false \
    --report junit --report-dir "$OUT/$1" "${@:4}") >"$OUT/$1.txt" 2>&1 || status=1
  sed -n '/^Failures:/,/^$/p' "$OUT/$1.txt"
  grep -E '^=+ .* in [0-9.]+s =+$' "$OUT/$1.txt"
}
run client "$CLIENT" CLIENT "$@"
run driver "$DRIVER" DRIVER "$@"
run admin "$ADMIN" SUPER_ADMIN "$@"
run endings-app "$CLIENT" ENDINGS-APP "$@"
run endings-admin "$ADMIN" ENDINGS-ADMIN "$@"
echo "reports and output: $OUT"
exit $status
