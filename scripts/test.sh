#!/usr/bin/env bash
# Runs every check and test of the project: set-up (as root it installs the Debian packages the
# tests start), lint, type check, the migration check, and the whole vitest suite on SQLite and on
# PostgreSQL, including the end-to-end tests on real HAProxy, ipset/iptables in network namespaces and
# Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
source scripts/node-env.sh
echo "== lint" >&2
npx eslint --max-warnings=0 .
echo "== format" >&2
npx prettier --check . >/dev/null || { npx prettier --list-different . >&2; echo "run npm run format" >&2; exit 1; }
echo "== typecheck" >&2
npx tsc -p tsconfig.json
echo "== translations" >&2
(cd web && npx lingui extract --clean >/dev/null)
if ! git diff --quiet -- web/src/locales web/src/admin/locales; then
  git diff --stat -- web/src/locales web/src/admin/locales >&2
  echo "the lingui catalogs are out of date: run npm run extract -w web and translate the new messages" >&2
  exit 1
fi
# Every German message is translated: no msgstr "" without continuation lines (the catalog header has some).
for catalog in web/src/locales/de/messages.po web/src/admin/locales/de/messages.po; do
  untranslated=$(awk 'pending && !/^"/ { n++ } { pending = /^msgstr ""$/ } END { print n + 0 }' "$catalog")
  if [ "$untranslated" -gt 0 ]; then
    echo "$catalog has $untranslated untranslated messages" >&2
    exit 1
  fi
done
echo "== migrations" >&2
npx drizzle-kit check --config server/drizzle.config.ts
npx drizzle-kit check --config server/drizzle.pg.config.ts
# The whole suite twice: on SQLite (the embedded default) and on a throw-away PostgreSQL cluster
# (POSTERN_TEST_DATABASE=postgres: test/support/database-setup.ts), as issue #12 asks.
status=0
mkdir -p test-results
for database in sqlite postgres; do
  echo "== tests on $database" >&2
  POSTERN_TEST_DATABASE=$database npx vitest run --reporter=default --reporter=json \
    --outputFile.json="test-results/vitest-$database.json" || status=$?
done
node -e '
  for (const db of ["sqlite", "postgres"]) {
    try {
      const r = JSON.parse(require("fs").readFileSync(`test-results/vitest-${db}.json`, "utf8"));
      console.log(`${db}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
    } catch { console.log(`${db}: no results`); }
  }
' || true
exit "$status"
