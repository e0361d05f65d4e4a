#!/bin/sh
# A stand-in for the summarizer node: counts the semicolon-separated
# changes it is given and says so.
n=$(($(tr -cd ';' | wc -c) + 1))
printf '{"text": "This release brings %d changes.", "count": %d}\n' "$n" "$n"
