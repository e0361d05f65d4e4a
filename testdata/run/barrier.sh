#!/bin/sh
# Leaves a file in $BARRIER_DIR, then waits until $BARRIER_N files are there
# (that many services running at once) and prints
# {"slot": "$PROSE_SLOT", "met": N}: N is how many it saw. Waits at most
# $BARRIER_WAIT seconds (default 60), a guard against a hang, not a measure.
cat >/dev/null
: >"$BARRIER_DIR/$$"
i=0
limit=$(( ${BARRIER_WAIT:-60} * 20 ))
while n=$(ls "$BARRIER_DIR" | wc -l) && [ "$n" -lt "$BARRIER_N" ] && [ "$i" -lt "$limit" ]; do
  sleep 0.05
  i=$((i + 1))
done
printf '{"slot":"%s","met":%d}\n' "$PROSE_SLOT" "$n"
