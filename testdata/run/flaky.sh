#!/bin/sh
# A flaky service: the first N calls fail (exit 1, a message on stderr),
# the later ones succeed. N is $FLAKY_FAILS, else the call's
# failures_before_success argument, else 0. Calls are counted in the file
# $FLAKY_COUNTER (default ./flaky.count), so a fresh directory starts over.
# Success prints {"data": "[ops] fetched payload for KEY", "call": COUNT}.
input=$(cat)
n=${FLAKY_FAILS:-$(printf '%s' "$input" | sed -n 's/.*"failures_before_success":\([0-9]*\).*/\1/p')}
n=${n:-0}
counter=${FLAKY_COUNTER:-flaky.count}
count=$(cat "$counter" 2>/dev/null || echo 0)
count=$((count + 1))
echo "$count" >"$counter"
if [ "$count" -le "$n" ]; then
  echo "flaky: transient failure $count of $n" >&2
  exit 1
fi
key=$(printf '%s' "$input" | sed -n 's/.*"key":"\([^"]*\)".*/\1/p')
printf '{"data":"[ops] fetched payload for %s","call":%d}\n' "${key:-unknown}" "$count"
