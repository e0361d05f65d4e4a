#!/bin/sh
# Renders both nodes offline. stdin: {"node","inputs","prior","events","diff"}
# on one line; stdout: the node's new truth.
read -r req
headline=$(printf '%s' "$req" | sed -n 's/.*"headline":"\([^"]*\)".*/\1/p' | tail -n 1)
case "$req" in
'{"node":"signals"'*) echo "{\"headline\": \"${headline:-nothing yet}\", \"received\": \"$(date +%s)\"}" ;;
'{"node":"digest"'*) echo "{\"brief\": \"digest: $headline\"}" ;;
*) echo "unknown node" >&2; exit 1 ;;
esac
