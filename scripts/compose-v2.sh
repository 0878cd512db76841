#!/bin/sh
# Docker Compose v2 for the integration suite, which runs deploy-kit with both compose versions (issue 7).
# Debian bookworm packages only compose v1; trixie's docker-compose 2.26.1 is one static binary that runs on
# bookworm (DOCKER.md §4). It is downloaded with a PRIVATE apt sources list and lists directory under .cache/ (the
# machine's apt state is untouched) and extracted as a CLI plugin into .cache/docker/cli-plugins. Idempotent.
# Prints the directory to use as DOCKER_CONFIG for `docker compose`.
set -eu
cd "$(dirname "$0")/.."
root=$PWD/.cache
plugins=$root/docker/cli-plugins
log() { echo "compose-v2: $*" >&2; }

if [ ! -x "$plugins/docker-compose" ]; then
  mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$mirror" ] || { log "no Debian mirror found in /etc/apt"; exit 1; }
  apt=$root/apt-trixie
  mkdir -p "$apt/lists/partial" "$plugins"
  echo "deb $mirror trixie main" > "$apt/sources.list"
  opts="-o Dir::Etc::SourceList=$apt/sources.list -o Dir::Etc::SourceParts=/nonexistent -o Dir::State::Lists=$apt/lists -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache="
  log "fetching docker-compose v2 from trixie ($mirror)"
  # shellcheck disable=SC2086
  apt-get $opts update >"$apt/update.log" 2>&1 || { tail -5 "$apt/update.log" >&2; exit 1; }
  # shellcheck disable=SC2086
  (cd "$apt" && apt-get $opts download docker-compose >"$apt/download.log" 2>&1) || { tail -5 "$apt/download.log" >&2; exit 1; }
  rm -rf "$apt/x"
  for deb in "$apt"/docker-compose_*.deb; do dpkg-deb -x "$deb" "$apt/x"; done
  cp "$apt/x/usr/libexec/docker/cli-plugins/docker-compose" "$plugins/docker-compose"
  chmod 755 "$plugins/docker-compose"
fi
DOCKER_CONFIG=$root/docker docker compose version >&2
echo "$root/docker"
