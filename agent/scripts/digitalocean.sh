#!/bin/sh
# DigitalOcean Cloud Firewall $POLICY: an inbound tcp rule on ${PORT:-22} from the address.
# PASSWORD holds the API token (declare it Sensitive). Example only; not run against a real account.
set -eu
action="$1"; port="${PORT:-22}"
body="{\"inbound_rules\":[{\"protocol\":\"tcp\",\"ports\":\"$port\",\"sources\":{\"addresses\":[\"$knoc_cidr\"]}}]}"
call() { curl -fsS -X "$1" -H "Authorization: Bearer $PASSWORD" -H 'Content-Type: application/json' \
  -d "$body" "https://api.digitalocean.com/v2/firewalls/$POLICY/rules"; }
case "$action" in
  add) call POST ;;
  del) call DELETE || true ;;
  flush) exit 0 ;;
  *) echo "unknown action $action" >&2; exit 2 ;;
esac
