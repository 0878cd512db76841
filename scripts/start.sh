#!/bin/sh
# Quick start: a single-node server on 4 drives under ./data, console on :9001.
# Credentials are generated on first start (./data/credentials.json, mode 600) and printed once.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh >/dev/null
# The node options are the ones on server/bin/svc.js's first line (why: there); a test keeps them equal.
exec node --heap-growing-percent=100 --incremental-marking-hard-trigger=100 server/bin/svc.js server --console-address :9001 './data/drive{1...4}' "$@"
