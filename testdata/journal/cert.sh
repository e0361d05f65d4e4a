#!/bin/sh
# Journal test certifier: rejects the proposals of even iterations,
# certifies the others, with a structured verdict. Logs every invocation to
# $JLOG/cert.log.
cat >/dev/null
echo "start $PROSE_CALL_ID" >>"$JLOG/cert.log"
echo "done $PROSE_CALL_ID" >>"$JLOG/cert.log"
case $PROSE_CALL_ID in
*[02468]) echo '{"verdict":"reject","reason":"even"}' ;;
*) echo '{"verdict":"certify"}' ;;
esac
