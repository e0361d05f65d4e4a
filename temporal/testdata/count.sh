#!/bin/sh
# count.sh LABEL [SECS]: a test service that counts its own runs. It
# appends "start LABEL CALL_ID ATTEMPT NANOS" to $LOG, sleeps SECS (default 0),
# appends "done LABEL CALL_ID ATTEMPT NANOS", then answers: the certifier
# certifies, any other label proposes "step CALL_ID".
label=$1
secs=${2:-0}
cat >/dev/null
printf 'start %s %s %s %s\n' "$label" "$PROSE_CALL_ID" "$PROSE_ATTEMPT" "$(date +%s%N)" >>"$LOG"
[ "$secs" = 0 ] || sleep "$secs"
printf 'done %s %s %s %s\n' "$label" "$PROSE_CALL_ID" "$PROSE_ATTEMPT" "$(date +%s%N)" >>"$LOG"
case $label in
certifier) echo '{"verdict":"certify"}' ;;
*) printf '"step %s"\n' "$PROSE_CALL_ID" ;;
esac
