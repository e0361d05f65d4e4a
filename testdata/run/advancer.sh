#!/bin/sh
# Demo advancer for the ratchet pattern: proposes the next step of a
# release, as JSON. It reads its arguments (one JSON object) from stdin:
# the number of certified steps picks the next step; when the last proposal
# was rejected (rejection_feedback is not null) it proposes the same step
# again, this time saying how it was checked.
#
# With PROSE_DEMO_LOG set, every input is appended to $PROSE_DEMO_LOG.advancer.
input=$(cat)
if [ -n "$PROSE_DEMO_LOG" ]; then
  printf '%s\n' "$input" >>"$PROSE_DEMO_LOG.advancer"
fi
progress=${input#*\"certified_progress\":}
progress=${progress%%,\"rejection_feedback\":*}
done_steps=$(printf '%s' "$progress" | grep -o '"step":' | wc -l)
next=$((done_steps + 1))
case $next in
1) action="write the changelog" ;;
2) action="tag the release" ;;
3) action="build the binaries" ;;
4) action="publish the binaries" ;;
*) action="announce release step $next" ;;
esac
case $input in
*'"rejection_feedback":null'*)
  printf '{"step":%d,"action":"%s","checked":false}\n' "$next" "$action"
  ;;
*)
  reason=$(printf '%s' "$input" | sed -n 's/.*"rejection_feedback":{.*"reason":"\([^"]*\)".*/\1/p')
  printf '{"step":%d,"action":"%s","checked":true,"addresses":"%s"}\n' "$next" "$action" "$reason"
  ;;
esac
