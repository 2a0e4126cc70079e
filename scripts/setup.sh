#!/usr/bin/env bash
# Installs everything Postern needs on a fresh Debian machine: Node.js >= 24 (fetched into .node/
# when the machine's is older), Debian packages when run as root, the npm packages, and the built
# web app. `scripts/setup.sh --test` also installs what the tests start (HAProxy, socat, Chromium,
# PostgreSQL: test/support/postgres.ts runs its binaries in a temp dir; the packaged cluster is not used).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node-env.sh

packages=(ipset iptables nftables iproute2)
if [ "${1:-}" = "--test" ]; then packages+=(haproxy socat chromium slapd ldap-utils simplesamlphp php-cli php-xml php-mbstring prometheus dpkg-dev lintian debootstrap binutils curl systemd man-db xz-utils postgresql); fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  missing=()
  for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "postern: installing Debian packages: ${missing[*]}" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
else
  echo "postern: not root; make sure these Debian packages are installed: ${packages[*]}" >&2
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "postern: installing npm packages" >&2
  npm ci --no-fund --no-audit --loglevel=error
fi
npm run --silent build >&2
