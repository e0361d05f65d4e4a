#!/bin/sh
# svc.sh LABEL REPLY...: a scripted test service for the std pattern tests.
#
# It appends one line "LABEL ARGS_JSON" to the file $LOG, then answers its
# Nth call (counted per LABEL in $LOG) with the Nth REPLY, the last REPLY
# once they run out. A REPLY is printed as it is (JSON or text), except:
#
#   fail:MSG          print MSG on stderr and exit 1 (the call throws)
#   sleep:SECS:REPLY  record the shell's pid in $LOG.pids, sleep, record it
#                     again in $LOG.slept (the sleep ran to its end), then
#                     REPLY
#   append:KEY        print the JSON string "VALUE|LABEL", where VALUE is the
#                     string value of KEY in the arguments (or "null")
#
# POSIX sh and sed only.
label=$1
shift
input=$(cat)
printf '%s %s\n' "$label" "$input" >>"$LOG"
n=$(grep -c "^$label " "$LOG")
i=1
reply=
for r in "$@"; do
	reply=$r
	[ "$i" -ge "$n" ] && break
	i=$((i + 1))
done
while :; do
	case $reply in
	fail:*)
		printf '%s\n' "${reply#fail:}" >&2
		exit 1
		;;
	sleep:*)
		rest=${reply#sleep:}
		echo $$ >>"$LOG.pids"
		sleep "${rest%%:*}"
		echo $$ >>"$LOG.slept"
		reply=${rest#*:}
		;;
	append:*)
		key=${reply#append:}
		value=$(printf '%s' "$input" | sed -n "s/.*\"$key\":\"\([^\"]*\)\".*/\1/p")
		[ -n "$value" ] || value=null
		printf '"%s|%s"\n' "$value" "$label"
		exit 0
		;;
	*)
		printf '%s\n' "$reply"
		exit 0
		;;
	esac
done
