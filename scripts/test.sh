#!/bin/sh
# The whole test suite: system packages, npm install, build, layer rules, every test.
set -eu
cd "$(dirname "$0")/.."
# The C addons must build here: their tests check that they load (scripts/build-native.sh).
SVC_SETUP_SYSTEM=1 SVC_NATIVE_REQUIRED=1 sh scripts/setup.sh

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

# The integration suite (integration/test) runs with the rest and needs a Docker engine plus the local base
# images: docker-engine.sh starts dockerd when none answers and builds only missing images. When no engine can
# be had, this fails the run: the suite is never skipped (issue 7). Ryuk is off because it is a registry pull,
# and testcontainers must address published ports on loopback (DOCKER.md §5).
sh scripts/docker-engine.sh
# Compose v2 as a CLI plugin in a private DOCKER_CONFIG: one scenario runs deploy-kit with it, the others with v1.
SVC_COMPOSE_V2_CONFIG=$(sh scripts/compose-v2.sh)
export SVC_COMPOSE_V2_CONFIG
export SVC_INTEGRATION=1 TESTCONTAINERS_RYUK_DISABLED=true TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1
# Containers and networks of this run carry this label; they are removed at exit even when a test died
# (other runs on the same engine are left alone).
SVC_TEST_RUN_ID="svc-test-$$-$(date +%s)"
export SVC_TEST_RUN_ID
cleanup() {
  docker ps -aq --filter "label=svc-test.run=$SVC_TEST_RUN_ID" | xargs -r docker rm -f >/dev/null 2>&1 || true
  docker network ls -q --filter "label=svc-test.run=$SVC_TEST_RUN_ID" | xargs -r docker network rm >/dev/null 2>&1 || true
  # The run's port reservations (integration/test/helpers/net.ts).
  rm -rf "${TMPDIR:-/tmp}/svc-test-ports-$SVC_TEST_RUN_ID"
}
trap cleanup EXIT
node scripts/run-tests.mjs "$@"
# The server's tests again on drives with a metadata file per key (scripts/run-tests.mjs), the layout drives formatted
# before the key index became the default keep: both layouts a drive may have are held to the same suite. Tests whose
# outcome the layout cannot change (unit tests of parsers and formats, the fuzzers, the rc and console clients:
# scripts/layout-tests.mjs) run once.
# Filters given to this script apply to both passes.
[ "$#" -gt 0 ] || set -- server/
SVC_KEY_INDEX=0 node scripts/run-tests.mjs --layout-pass "$@"
