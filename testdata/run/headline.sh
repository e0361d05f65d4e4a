#!/bin/sh
# A stand-in for the headline-writer node: the first change becomes the
# headline. The call's arguments arrive on stdin as one JSON object.
sed -e 's/.*"changes": *"\([^;"]*\).*/{"headline": "Now: \1"}/'
