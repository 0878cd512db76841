#!/bin/sh
# Quick start: a single-node server on 4 drives under ./data, console on :9001.
# Credentials are generated on first start (./data/credentials.json, mode 600) and printed once.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh >/dev/null
exec node server/bin/svc.js server --console-address :9001 './data/drive{1...4}' "$@"
