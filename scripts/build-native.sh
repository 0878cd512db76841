#!/bin/sh
# Builds the project's Node-API addons (server/native/*.c → server/native/build/*.node) with the system's C compiler
# against Node's own headers: one file each, so no node-gyp (and no Python) is needed. Rebuilt only when the source is
# newer than the addon (or a header beside it newer). The server runs without them (each has a fallback, named in its source), but the test suite
# checks that they were built and load, so a failure here fails the setup.
set -eu
cd "$(dirname "$0")/.."
inc="$(node -p "require('node:path').resolve(process.execPath, '../../include/node')")"
if [ ! -f "$inc/node_api.h" ]; then
  nodedir="$(npm config get nodedir 2>/dev/null || true)"
  inc="$nodedir/include/node"
fi
if [ ! -f "$inc/node_api.h" ]; then
  echo "build-native: Node's headers not found (node_api.h beside the node binary or under npm's nodedir); install Node.js with its headers" >&2
  exit 1
fi
cc="${CC:-cc}"
mkdir -p server/native/build
for src in server/native/*.c; do
  out="server/native/build/$(basename "$src" .c).node"
  if [ ! -f "$out" ] || [ "$src" -nt "$out" ] || [ -n "$(find server/native -maxdepth 1 -name '*.h' -newer "$out")" ]; then
    "$cc" -O2 -fPIC -shared -fvisibility=hidden -Wall -Werror -I"$inc" -o "$out.tmp" "$src"
    mv "$out.tmp" "$out"
  fi
done
