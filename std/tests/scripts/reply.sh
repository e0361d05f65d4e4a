#!/bin/sh
# reply.sh LABEL REPLY...: a scripted service for the library's tests.
#
# Each call appends "LABEL ARGS_JSON" to calls.log in the working directory
# (prose test gives every test its own), then answers the call with the
# REPLY whose place matches the number of calls LABEL has had so far; once
# the replies run out, the last one answers every further call. A REPLY is
# printed as it is (JSON or text), except:
#
#   fail:MESSAGE   print MESSAGE on stderr and exit 1: the call fails
#   echo:KEY       print the JSON string "VALUE|LABEL", VALUE being the
#                  string argument KEY of the call (null when absent)
#
# POSIX sh and sed only.
label=$1
shift
args=$(cat)
printf '%s %s\n' "$label" "$args" >>calls.log
calls=$(grep -c "^$label " calls.log)
n=0
reply=
for r in "$@"; do
	n=$((n + 1))
	reply=$r
	[ "$n" -ge "$calls" ] && break
done
case $reply in
fail:*)
	printf '%s\n' "${reply#fail:}" >&2
	exit 1
	;;
echo:*)
	key=${reply#echo:}
	value=$(printf '%s' "$args" | sed -n "s/.*\"$key\":\"\([^\"]*\)\".*/\1/p")
	[ -n "$value" ] || value=null
	printf '"%s|%s"\n' "$value" "$label"
	;;
*)
	printf '%s\n' "$reply"
	;;
esac
