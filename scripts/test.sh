#!/bin/sh
# The whole test suite: system packages, npm install, build, layer rules, every test.
set -eu
cd "$(dirname "$0")/.."
SVC_SETUP_SYSTEM=1 sh scripts/setup.sh
npm run --silent lint:layers
node scripts/run-tests.mjs "$@"
