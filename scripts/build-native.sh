#!/bin/sh
# Builds the server's Node-API addons (server/native/*.c → server/native/build/*.node) with the system's C compiler
# against Node's own headers: one file each, so no node-gyp (and no Python) is needed. Rebuilt only when the source is
# newer than the addon (or a header beside it newer). The server runs without them (each has a portable fallback,
# named in its source), so where no compiler or headers are found this warns and goes on; with SVC_NATIVE_REQUIRED=1
# (the test suite, whose tests check that the addons load) it fails instead.
set -eu
cd "$(dirname "$0")/.."
required="${SVC_NATIVE_REQUIRED:-0}"
give_up() {
  if [ "$required" = "1" ]; then
    echo "build-native: $1" >&2
    exit 1
  fi
  echo "build-native: $1; the server runs without its C addons (slower large PUTs)" >&2
  exit 0
}
inc="$(node -p "require('node:path').resolve(process.execPath, '../../include/node')")"
if [ ! -f "$inc/node_api.h" ]; then
  nodedir="$(npm config get nodedir 2>/dev/null || true)"
  inc="$nodedir/include/node"
fi
[ -f "$inc/node_api.h" ] || give_up "Node's headers not found (node_api.h beside the node binary or under npm's nodedir): install Node.js with its headers"
cc="${CC:-cc}"
command -v "$cc" >/dev/null 2>&1 || give_up "no C compiler ($cc): apt-get install gcc libc6-dev"
mkdir -p server/native/build
for src in server/native/*.c; do
  out="server/native/build/$(basename "$src" .c).node"
  if [ ! -f "$out" ] || [ "$src" -nt "$out" ] || [ -n "$(find server/native -maxdepth 1 -name '*.h' -newer "$out")" ]; then
    "$cc" -O2 -fPIC -shared -fvisibility=hidden -Wall -Werror -I"$inc" -o "$out.tmp" "$src" || give_up "$src did not compile"
    mv "$out.tmp" "$out"
  fi
done
