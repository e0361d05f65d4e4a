#!/bin/sh
# A stand-in for the collector node: "reads" the source it is given.
sed -e 's/.*"source": *"\([^"]*\)".*/{"notes": "three notes from \1"}/'
