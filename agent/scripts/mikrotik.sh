#!/bin/sh
# MikroTik RouterOS v7 REST: address-list $POLICY entry for the address (IPv6 under /ipv6).
# Example only; not run against a real device.
set -eu
action="$1"; ip="${3:-}"
case "$ip" in *:*) base="$URL/rest/ipv6/firewall/address-list" ;; *) base="$URL/rest/ip/firewall/address-list" ;; esac
call() { curl -fsS -k -u "$USERNAME:$PASSWORD" -H 'Content-Type: application/json' "$@"; }
ids() { call "$base?list=$POLICY&address=$ip" | tr ',' '\n' | sed -n 's/.*"\.id":"\([^"]*\)".*/\1/p'; }
case "$action" in
  add) [ -n "$(ids)" ] || call -X PUT -d "{\"list\":\"$POLICY\",\"address\":\"$ip\"}" "$base" >/dev/null ;;
  del) for id in $(ids); do call -X DELETE "$base/$id" >/dev/null; done ;;
  flush) exit 0 ;;
  *) echo "unknown action $action" >&2; exit 2 ;;
esac
