#!/bin/sh
# Check Point Management API (R80+): host kk_<ip> in group $POLICY, then publish. Install policy
# separately (or add install-policy below). Example only; not run against a real device.
set -eu
action="$1"; ip="${3:-}"
case "$action" in add|del|flush) ;; *) echo "unknown action $action" >&2; exit 2 ;; esac
api() { curl -fsS -k -H 'Content-Type: application/json' ${sid:+-H "X-chkp-sid: $sid"} -d "$2" "$URL/web_api/$1"; }
sid=$(api login "{\"user\":\"$USERNAME\",\"password\":\"$PASSWORD\"}" | sed -n 's/.*"sid" *: *"\([^"]*\)".*/\1/p')
[ -n "$sid" ] || { echo "login to $URL failed" >&2; exit 1; }
trap 'api logout "{}" >/dev/null 2>&1 || true' EXIT
name="kk_$(printf '%s' "$ip" | tr ':' '-')"
case "$action" in
  add) api add-host "{\"name\":\"$name\",\"ip-address\":\"$ip\",\"ignore-warnings\":true}" >/dev/null 2>&1 || true
       api set-group "{\"name\":\"$POLICY\",\"members\":{\"add\":\"$name\"}}" >/dev/null ;;
  del) api set-group "{\"name\":\"$POLICY\",\"members\":{\"remove\":\"$name\"}}" >/dev/null 2>&1 || true ;;
  flush) exit 0 ;;
  *) echo "unknown action $action" >&2; exit 2 ;;
esac
api publish "{}" >/dev/null
