#!/bin/sh
# Demo refiner for std/patterns/refine.prose.md: the first call writes a
# one-sentence draft of the brief, every later call adds a sentence.
# Reads the call's JSON arguments on stdin; POSIX sh and sed only.
in=$(cat)
field() { printf '%s' "$in" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"; }
draft=$(field current_result)
if [ -z "$draft" ]; then
	printf '"%s: first draft."\n' "$(field task_brief)"
else
	printf '"%s One more detail."\n' "$draft"
fi
