#!/bin/sh
# Installs what the project needs and builds it. Idempotent: a second run only rebuilds.
# SVC_SETUP_SYSTEM=1 also installs the Debian packages the test suite drives (see README "Testing").
set -eu
cd "$(dirname "$0")/.."

if [ "${SVC_SETUP_SYSTEM:-0}" = "1" ]; then
  sh scripts/system-deps.sh
fi

# Install only when the lockfile changed since the last install (keeps `npm start` fast). `npm install --no-save`
# installs exactly the locked versions like `npm ci`, but tolerates optional platform packages the registry mirror
# of this machine does not carry (rollup's non-linux binaries, needed by Vite): `npm ci` refuses such a lockfile.
if [ ! -f node_modules/.svc-installed ] || [ package-lock.json -nt node_modules/.svc-installed ]; then
  npm install --no-audit --no-fund --no-save
  touch node_modules/.svc-installed
fi
# The Node-API addons (server/native), rebuilt only when their source changed.
sh scripts/build-native.sh
npx tsc -b
# The console front end (server/console → server/dist/console), rebuilt only when a source file is newer than
# the last build (keeps `npm start` fast).
if [ ! -f server/dist/console/index.html ] || [ -n "$(find server/console -newer server/dist/console/index.html -type f -not -path '*/node_modules/*' | head -n 1)" ]; then
  npx vite build --config server/console/vite.config.ts
fi
