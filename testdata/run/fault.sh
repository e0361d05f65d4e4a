#!/bin/sh
# A misbehaving service for fault tests; $1 picks the fault:
#   crash    exits 3 with a message on stderr
#   hang     sleeps for an hour
#   garbage  prints binary bytes
#   flood    prints 100 MB
#   empty    exits 0 printing nothing
#   stubborn ignores SIGTERM and never ends
cat >/dev/null
case $1 in
crash) echo "fault: segmentation fault in the widget" >&2; exit 3 ;;
hang) exec sleep 3600 ;;
garbage) printf '\377\376\000garbage\001' ;;
flood) head -c 100000000 /dev/zero | tr '\0' x ;;
empty) exit 0 ;;
stubborn) trap '' TERM; while :; do sleep 0.1; done ;;
*) echo "fault: unknown mode $1" >&2; exit 2 ;;
esac
