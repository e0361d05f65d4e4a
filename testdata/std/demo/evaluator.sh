#!/bin/sh
# Demo evaluator for std/patterns/refine.prose.md: scores a draft 0.3 per
# sentence (at most 1) and always suggests adding a detail.
# Reads the call's JSON arguments on stdin; POSIX sh, sed, tr, wc and awk.
in=$(cat)
draft=$(printf '%s' "$in" | sed -n 's/.*"result":"\([^"]*\)".*/\1/p')
sentences=$(printf '%s' "$draft" | tr -cd '.' | wc -c)
score=$(awk -v n="$sentences" 'BEGIN { s = n * 0.3; if (s > 1) s = 1; printf "%.1f", s }')
printf '{"score": %s, "suggestions": "add one concrete detail"}\n' "$score"
