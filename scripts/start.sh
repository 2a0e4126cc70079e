#!/usr/bin/env bash
# The main job on the embedded default: sets up, migrates the SQLite database under ./data, starts
# the server on 127.0.0.1:8080 and a local agent enrolled with it, and on the first run creates an
# admin, a demo user and the local agent, printing how to sign in. Ctrl-C stops both by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
# POSTERN_SKIP_SETUP=1: set-up already done (the tests run this script beside others using web/dist).
[ "${POSTERN_SKIP_SETUP:-}" = 1 ] || bash scripts/setup.sh
source scripts/node-env.sh

export POSTERN_DATA_DIR="${POSTERN_DATA_DIR:-$PWD/data}"
export POSTERN_LISTEN="${POSTERN_LISTEN:-127.0.0.1:8080}"
url="http://$POSTERN_LISTEN"
agent_config="$POSTERN_DATA_DIR/agent.json"
first_run_file="$POSTERN_DATA_DIR/first-run.txt"
postern() { node cli/src/main.ts "$@"; }

postern db migrate >/dev/null

node server/src/main.ts &
server_pid=$!
agent_pid=""
stop() {
  [ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null || true
  kill "$server_pid" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap stop EXIT INT TERM

for _ in $(seq 1 100); do
  node -e "fetch('$url/api/system_status').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))" && break
  kill -0 "$server_pid" 2>/dev/null || { echo "postern: the server did not start" >&2; exit 1; }
  sleep 0.2
done

if [ ! -f "$agent_config" ]; then
  umask 077
  admin_password="$(node -e 'console.log(require("crypto").randomBytes(12).toString("base64url"))')"
  user_password="$(node -e 'console.log(require("crypto").randomBytes(12).toString("base64url"))')"
  printf '%s\n' "$admin_password" | postern admin create --username admin --name Administrator --password-stdin >/dev/null
  printf '%s\n' "$user_password" | postern user create --username demo --name "Demo User" --password-stdin >/dev/null
  token="$(postern agent create local --json --server-url "$url" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).Token))')"
  node agent/src/main.ts enrol --server "$url" --token "$token" --config "$agent_config" >/dev/null
  # The demo Knocs: an allowlist that needs no root, and as root a Linux Knoc on an ipset set made here.
  linux=()
  if [ "$(id -u)" = 0 ] && command -v ipset >/dev/null && ipset create postern-demo hash:ip family inet timeout 0 -exist; then
    linux=(--linux)
  fi
  demo="$(printf '%s\n' "$admin_password" | node scripts/lib/first-run-demo.ts --server "$url" --admin admin "${linux[@]}")"
  cat >"$first_run_file" <<TXT
Postern is running at $url

  User portal:    $url/        sign in as  demo  /  $user_password
  Admin console:  $url/admin   sign in as  admin /  $admin_password

$demo

A local agent named "local" is enrolled ($agent_config).
These first-run credentials are kept in $first_run_file (mode 0600).
TXT
  cat "$first_run_file"
else
  # An agent enrolled by an older release has no pinned server key: pin this data directory's key
  # (same machine, same data directory: nothing is learnt over the network).
  if ! grep -q '"serverPublicKey"' "$agent_config"; then
    server_key="$(postern agent server-key)"
    node -e '
      const fs = require("fs"); const [file, key] = process.argv.slice(1);
      const c = JSON.parse(fs.readFileSync(file, "utf8")); c.serverPublicKey = key;
      fs.writeFileSync(file, JSON.stringify(c, null, 2) + "\n", { mode: 0o600 });
    ' "$agent_config" "$server_key"
    echo "postern: pinned this server's agent signing key in $agent_config" >&2
  fi
  echo "Postern is running at $url (first-run credentials: $first_run_file)"
fi

node agent/src/main.ts run --config "$agent_config" &
agent_pid=$!
wait "$server_pid"
