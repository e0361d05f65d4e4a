#!/bin/sh
# Journal kill-test service: svc.sh ROLE. Logs "start ID ATTEMPT" and
# "done ID ATTEMPT" to $JLOG/ROLE.log and answers deterministically from
# its role and $PROSE_CALL_ID, after $JSLEEP seconds (default 0.02):
#   ok      {"out":"ROLE ID"}
#   flaky   fails on the first two iterations of the outermost loop
#           (L12/1, L12/2>L30/4), else ok
#   fail    always fails
#   slow    sleeps 60 s, then ok (for timeouts and races: it never wins a
#           race, however loaded the machine, and is always cut off)
#   late    waits (up to 4 s) until the run has journaled a new failure of
#           a "fail" service, then ok
#   score   {"score": 0.9 when the innermost iteration is 3, else 0.5,
#           "suggestions": ...}
role=$1
cat >/dev/null
echo "start $PROSE_CALL_ID $PROSE_ATTEMPT" >>"$JLOG/$role.log"
sleep "${JSLEEP:-0.02}"
case $role in
flaky)
  case ${PROSE_CALL_ID%%>*} in
  */1 | */2)
    echo "done $PROSE_CALL_ID $PROSE_ATTEMPT" >>"$JLOG/$role.log"
    echo "flaky failure at $PROSE_CALL_ID" >&2
    exit 1
    ;;
  esac
  ;;
fail)
  echo "done $PROSE_CALL_ID $PROSE_ATTEMPT" >>"$JLOG/$role.log"
  echo "service down" >&2
  exit 1
  ;;
slow) sleep 60 ;;
late)
  # Wait until the run has journaled a failure of the "fail" service after
  # this call started (a resumed run must not count the killed run's): the
  # run records the failure before it moves on to the catch, so it is in
  # the race's failure list long before this answer is read. At most 4 s
  # (1 s was missed on a loaded machine, the failure journaled after this
  # answer): when the failure was answered from the journal, none comes.
  fails() { cat .prose/runs/*/journal.jsonl 2>/dev/null | grep -c '"t":"end".*service down'; }
  before=$(fails)
  i=0
  until [ "$(fails)" -gt "${before:-0}" ] || [ $i -ge 80 ]; do
    sleep 0.05
    i=$((i + 1))
  done
  ;;
score)
  echo "done $PROSE_CALL_ID $PROSE_ATTEMPT" >>"$JLOG/$role.log"
  case ${PROSE_CALL_ID##*/} in
  3) echo '{"score":0.9,"suggestions":"none"}' ;;
  *) echo '{"score":0.5,"suggestions":"tighten it"}' ;;
  esac
  exit 0
  ;;
esac
echo "done $PROSE_CALL_ID $PROSE_ATTEMPT" >>"$JLOG/$role.log"
printf '{"out":"%s %s"}\n' "$role" "$PROSE_CALL_ID"
