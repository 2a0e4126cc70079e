#!/bin/sh
# pfSense: runtime table $POLICY over SSH (pfctl). A filter reload refills file-defined tables, so
# the agent's drift repair is what keeps it. Example only; not run against a real device.
set -eu
action="$1"; ip="${3:-}"
run() { ssh -o BatchMode=yes "$USERNAME@$URL" "$1"; }
case "$action" in
  add) run "pfctl -t $POLICY -T add $ip" ;;
  del) run "pfctl -t $POLICY -T delete $ip" || true ;;
  flush) run "pfctl -t $POLICY -T flush" ;;
  *) echo "unknown action $action" >&2; exit 2 ;;
esac
