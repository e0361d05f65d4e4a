#!/bin/sh
# Journal test advancer: proposes {"step": CALL_ID} and logs every
# invocation to $JLOG/adv.log ("start ID", then "done ID"). The call whose
# id ends in $JBLOCK hangs (then fails) until $JLOG/resumed exists, so a
# test can kill the run while that call is in flight.
cat >/dev/null
echo "start $PROSE_CALL_ID" >>"$JLOG/adv.log"
if [ -n "$JBLOCK" ] && [ ! -e "$JLOG/resumed" ]; then
  case $PROSE_CALL_ID in
  *"$JBLOCK")
    echo "block $PROSE_CALL_ID" >>"$JLOG/adv.log"
    sleep 5
    exit 1
    ;;
  esac
fi
echo "done $PROSE_CALL_ID" >>"$JLOG/adv.log"
printf '{"step":"%s"}\n' "$PROSE_CALL_ID"
