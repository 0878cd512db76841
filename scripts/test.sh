#!/bin/sh
# The whole test suite: system packages, npm install, build, layer rules, every test.
set -eu
cd "$(dirname "$0")/.."
SVC_SETUP_SYSTEM=1 sh scripts/setup.sh

# The Traefik JSON Schemas are read from the project's shared folder, never copied into the repository
# (DOCKER.md §6). A clone beside shared/ finds them at ../shared; otherwise the workplace copy is used.
if [ -z "${DEPLOY_KIT_TRAEFIK_SCHEMAS:-}" ]; then
  for d in "$PWD/../shared/schemas/traefik" /work/shared/schemas/traefik; do
    if [ -f "$d/traefik-v3.json" ]; then DEPLOY_KIT_TRAEFIK_SCHEMAS=$(cd "$d" && pwd); break; fi
  done
fi
if [ -z "${DEPLOY_KIT_TRAEFIK_SCHEMAS:-}" ]; then
  echo "test: Traefik JSON Schemas not found (expected ../shared/schemas/traefik); set DEPLOY_KIT_TRAEFIK_SCHEMAS" >&2
  exit 1
fi
export DEPLOY_KIT_TRAEFIK_SCHEMAS
npm run --silent lint:layers
node scripts/run-tests.mjs "$@"
