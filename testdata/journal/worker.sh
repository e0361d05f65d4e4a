#!/bin/sh
# Journal test worker for a parallel fan-out: answers "result CALL_ID" and
# logs to $JLOG/worker.log. Calls whose id ends in one of $JBLOCK (a
# space-separated list) hang (then fail) unless $JLOG/resumed exists when
# they start; $JLOG/release lets a hanging call go on.
cat >/dev/null
echo "start $PROSE_CALL_ID" >>"$JLOG/worker.log"
if [ ! -e "$JLOG/resumed" ]; then
  for b in $JBLOCK; do
    case $PROSE_CALL_ID in
    *"$b")
      echo "block $PROSE_CALL_ID" >>"$JLOG/worker.log"
      i=0
      until [ -e "$JLOG/release" ]; do
        [ $i -ge 100 ] && exit 1
        sleep 0.05
        i=$((i + 1))
      done
      ;;
    esac
  done
fi
echo "done $PROSE_CALL_ID" >>"$JLOG/worker.log"
printf '"result %s"\n' "$PROSE_CALL_ID"
