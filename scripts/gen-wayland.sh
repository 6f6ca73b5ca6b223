#!/usr/bin/env bash
# Generates the Wayland protocol code CSessionWayland and CSessionKWin compile, from the
# protocol XML beside each,
# with the system's wayland-scanner (SwiftPM cannot compile C a build plugin generates).
#   scripts/gen-wayland.sh          # writes the files
#   scripts/gen-wayland.sh --check  # exits 1 when the committed files differ (scripts/test runs it)
set -euo pipefail
sources=$(cd "$(dirname "$0")/../Sources" && pwd)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
for target in CSessionWayland CSessionKWin; do
  cd "$sources/$target"
  for xml in protocols/*.xml; do
    name=$(basename "$xml" .xml)
    wayland-scanner client-header "$xml" "$out/$name-client-protocol.h"
    wayland-scanner private-code "$xml" "$out/$name-protocol.c"
    for f in "$name-client-protocol.h:$out/$name-client-protocol.h" "$name-protocol.c:$out/$name-protocol.c"; do
      committed=${f%%:*} fresh=${f#*:}
      if [ "${1:-}" = --check ]; then
        cmp -s "$committed" "$fresh" || { echo "gen-wayland: $target/$committed differs from wayland-scanner's output (run scripts/gen-wayland.sh)"; exit 1; }
      else
        cp "$fresh" "$committed"
      fi
    done
  done
done
