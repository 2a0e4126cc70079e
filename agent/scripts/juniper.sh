#!/bin/sh
# Junos SRX: address object kk_<ip> in the global address book, member of address-set $POLICY.
# Needs key-based SSH to $USERNAME@$URL. Example only; not run against a real device.
set -eu
action="$1"; acl="$2"; ip="${3:-}"
name="kk_$(printf '%s' "$ip" | tr ':/' '--')"
run() { ssh -o BatchMode=yes "$USERNAME@$URL" "configure private; $1; commit and-quit"; }
case "$action" in
  add) run "set security address-book global address $name $knoc_cidr; set security address-book global address-set $POLICY address $name" ;;
  del) run "delete security address-book global address-set $POLICY address $name; delete security address-book global address $name" || true ;;
  flush) echo "flush of $acl is not supported on Junos by this example" >&2; exit 0 ;;
  *) echo "unknown action $action" >&2; exit 2 ;;
esac
