#!/bin/sh
# Drafts an "article" from the call's notes argument:
# {"article": "[ops] Draft article:\nNOTES"}.
input=$(cat)
notes=$(printf '%s' "$input" | sed -n 's/.*"notes":"\(\([^"\\]\|\\.\)*\)".*/\1/p')
printf '{"article":"[ops] Draft article:\\n%s"}\n' "$notes"
