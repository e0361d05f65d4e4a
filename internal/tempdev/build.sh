#!/usr/bin/env bash
# Builds the tempdev command once and prints the path of the binary. The
# binary is cached by the digest of this module's sources and the Go version,
# so a second build on the same machine costs nothing. A cold build links the
# whole Temporal server (minutes, about 2.6 GB of memory): it runs at the
# lowest CPU priority so that it does not starve other work on the machine.
set -euo pipefail
cd "$(dirname "$0")"
key=$( (cat go.mod go.sum ./*.go; go version) | sha256sum | cut -c1-16)
dir="${PROSE_TEMPDEV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/prose/tempdev}/$key"
bin="$dir/tempdev"
if [ ! -x "$bin" ]; then
  mkdir -p "$dir"
  nice -n 19 go build -trimpath -o "$bin.tmp" . >&2
  mv "$bin.tmp" "$bin"
fi
echo "$bin"
