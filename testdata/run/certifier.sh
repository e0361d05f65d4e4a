#!/bin/sh
# Demo certifier for the ratchet pattern: returns a structured verdict,
# {"verdict":"certify"} or {"verdict":"reject","reason":...}, so no model
# is needed to judge `verdict certifies the proposal`. Policy: step 1 is
# certified as proposed; every later step must say it was checked.
#
# With PROSE_DEMO_LOG set, every input is appended to $PROSE_DEMO_LOG.certifier.
input=$(cat)
if [ -n "$PROSE_DEMO_LOG" ]; then
  printf '%s\n' "$input" >>"$PROSE_DEMO_LOG.certifier"
fi
proposal=${input#*\"proposed_step\":}
step=$(printf '%s' "$proposal" | sed -n 's/.*"step":\([0-9]*\).*/\1/p')
case $proposal in
*'"checked":true'*) echo '{"verdict":"certify"}' ;;
*)
  if [ "$step" = 1 ]; then
    echo '{"verdict":"certify"}'
  else
    printf '{"verdict":"reject","reason":"step %s does not say how it was checked"}\n' "$step"
  fi
  ;;
esac
