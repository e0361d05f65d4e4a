#!/bin/sh
# Sleeps $SLEEP seconds (default 1), then prints
# {"slot": "$PROSE_SLOT", "call": "$PROSE_CALL_ID"}. With $SLEEPER_COUNTER
# set, appends a line to that file first, so tests can count invocations;
# with $SLEEPER_DONE set, creates that file once the sleep is over, so tests
# can tell a stopped service from one that ran to its end.
cat >/dev/null
if [ -n "$SLEEPER_COUNTER" ]; then
  echo "$PROSE_CALL_ID" >>"$SLEEPER_COUNTER"
fi
sleep "${SLEEP:-1}"
if [ -n "$SLEEPER_DONE" ]; then
  : >"$SLEEPER_DONE"
fi
printf '{"slot":"%s","call":"%s"}\n' "$PROSE_SLOT" "$PROSE_CALL_ID"
