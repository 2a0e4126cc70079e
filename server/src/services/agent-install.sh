#!/bin/sh
# Postern agent installer, answered by the Postern server at /install/agent.sh with its own address
# filled in (packaging/README.md "The agent one-liner"):
#
#   curl -fsSL https://SERVER/install/agent.sh | sudo sh -s -- --token TOKEN [--server-fingerprint SHA256]
#
# Downloads the agent package from the same server, installs it, enrols this host with the one-time
# token (writing /etc/postern/agent.json) and enables and starts postern-agent.service. It refuses
# plain http to any server but a loopback one. Options: --token TOKEN (required),
# --server-fingerprint SHA256 (trust the server's self-signed certificate by its fingerprint),
# --server URL (another address of the same server), --enable-scripts, --haproxy-socket PATH,
# --force (enrol again, replacing the existing identity), --no-start.
set -eu

SERVER='@SERVER_URL@'
FINGERPRINT='@SERVER_FINGERPRINT@'
PIN='@SPKI_PIN@'
CONFIG=/etc/postern/agent.json
TOKEN=
ENABLE_SCRIPTS=
HAPROXY_SOCKET=
FORCE=
START=yes

die() {
	echo "postern agent install: $*" >&2
	exit 1
}
usage() {
	echo "usage: curl -fsSL $SERVER/install/agent.sh | sudo sh -s -- --token TOKEN [--server-fingerprint SHA256]" >&2
	echo "       [--server URL] [--enable-scripts] [--haproxy-socket PATH] [--force] [--no-start]" >&2
	exit 2
}
need_value() {
	[ "$2" -ge 2 ] || { echo "postern agent install: $1 needs a value" >&2; usage; }
}

while [ $# -gt 0 ]; do
	case "$1" in
	--token) need_value "$1" $#; TOKEN=$2; shift 2 ;;
	--server-fingerprint) need_value "$1" $#; FINGERPRINT=$2; shift 2 ;;
	--server) need_value "$1" $#; SERVER=${2%/}; shift 2 ;;
	--haproxy-socket) need_value "$1" $#; HAPROXY_SOCKET=$2; shift 2 ;;
	--enable-scripts) ENABLE_SCRIPTS=yes; shift ;;
	--force) FORCE=yes; shift ;;
	--no-start) START=; shift ;;
	-h | --help) usage ;;
	*) echo "postern agent install: unknown option $1" >&2; usage ;;
	esac
done

[ -n "$TOKEN" ] || die "--token is required: the one-time token shown when the agent was created"

# Plain http only to this machine: elsewhere the token and the package would travel unprotected.
case "$SERVER" in
https://*) ;;
http://*)
	hostport=${SERVER#http://}
	hostport=${hostport%%/*}
	case "$hostport" in
	localhost | localhost:* | 127.* | '[::1]' | '[::1]:'*) ;;
	*) die "refusing to install over plain http from $SERVER: use the server's https:// address" ;;
	esac
	;;
*) die "the server address must start with https:// (got $SERVER)" ;;
esac

[ "$(id -u)" = 0 ] || die "run it as root: ... | sudo sh -s -- --token TOKEN"
command -v dpkg >/dev/null 2>&1 || die "this installs a Debian package: dpkg is missing (Debian or Ubuntu needed)"
command -v curl >/dev/null 2>&1 || die "curl is missing"
arch=$(dpkg --print-architecture)
[ "$arch" = amd64 ] || die "the agent package is built for amd64, this machine is $arch"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
chmod 0755 "$tmp"

echo "postern agent install: downloading the agent package from $SERVER" >&2
if [ -n "$PIN" ]; then
	# The server's self-signed certificate: trust its public key alone.
	curl -fsSL --insecure --pinnedpubkey "sha256//$PIN" -o "$tmp/postern-agent.deb" "$SERVER/install/postern-agent.deb" ||
		die "could not download $SERVER/install/postern-agent.deb"
else
	curl -fsSL -o "$tmp/postern-agent.deb" "$SERVER/install/postern-agent.deb" ||
		die "could not download $SERVER/install/postern-agent.deb"
fi

echo "postern agent install: installing the package" >&2
if command -v apt-get >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$tmp/postern-agent.deb" >&2 ||
		die "apt-get could not install the agent package"
else
	dpkg -i "$tmp/postern-agent.deb" >&2 || die "dpkg could not install the agent package"
fi

set -- enrol --server "$SERVER" --config "$CONFIG"
[ -z "$FINGERPRINT" ] || set -- "$@" --server-fingerprint "$FINGERPRINT"
[ -z "$ENABLE_SCRIPTS" ] || set -- "$@" --enable-scripts
[ -z "$HAPROXY_SOCKET" ] || set -- "$@" --haproxy-socket "$HAPROXY_SOCKET"
[ -z "$FORCE" ] || set -- "$@" --force
echo "postern agent install: enrolling this host" >&2
# The token goes through the environment, not the command line other users can read.
POSTERN_AGENT_TOKEN=$TOKEN postern-agent "$@" || die "enrolment failed (see above)"

if [ -z "$START" ]; then
	echo "postern agent install: enrolled; start it with: systemctl enable --now postern-agent" >&2
elif [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
	systemctl enable postern-agent.service >/dev/null 2>&1 || die "could not enable postern-agent.service"
	systemctl restart postern-agent.service || die "could not start postern-agent.service (journalctl -u postern-agent)"
	echo "postern agent install: postern-agent is running (journalctl -u postern-agent)" >&2
else
	echo "postern agent install: enrolled; systemd is not running here: start the agent with" >&2
	echo "  postern-agent run --config $CONFIG" >&2
fi
