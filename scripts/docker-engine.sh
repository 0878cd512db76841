#!/bin/sh
# A running Docker engine plus the local base images the integration suite uses, without any registry
# (DOCKER.md §1 and §7). Idempotent: dockerd is started only when `docker info` fails, and each image is
# built only when `docker image inspect` does not find it (a reused machine keeps its images).
#   svc-test/debian:bookworm  Debian minbase from the machine's own mirror (debootstrap, ~35 s)
#   svc-test/haproxy:2.6      HAProxy 2.6 + pebble + curl from Debian, FROM the image above (~8 s)
#   svc-test/node:20          FROM scratch: the host's node binary and the shared libraries it and the
#                             server's native addons load (~3 s)
# Needs root and the packages of scripts/system-deps.sh.
set -eu
cd "$(dirname "$0")/.."

DEBIAN_IMAGE=svc-test/debian:bookworm
HAPROXY_IMAGE=svc-test/haproxy:2.6
NODE_IMAGE=svc-test/node:20
log() { echo "docker-engine: $*" >&2; }

start_dockerd() {
  pidfile=/var/run/docker.pid
  # A pidfile left by a killed daemon blocks the start only while its PID exists; delete it only when
  # that PID is not a dockerd (DOCKER.md §7), never a live daemon's.
  if [ -f "$pidfile" ]; then
    pid=$(cat "$pidfile" 2>/dev/null || true)
    if [ -z "$pid" ] || [ "$(cat "/proc/$pid/comm" 2>/dev/null || true)" != dockerd ]; then
      log "removing stale $pidfile (pid '${pid}' is not a dockerd)"
      rm -f "$pidfile"
    fi
  fi
  log "starting dockerd (log: /tmp/dockerd.svc-test.log)"
  nohup dockerd >/tmp/dockerd.svc-test.log 2>&1 &
  i=0
  while [ $i -lt 120 ]; do
    docker info >/dev/null 2>&1 && return 0
    i=$((i + 1)); sleep 0.5
  done
  tail -50 /tmp/dockerd.svc-test.log >&2 || true
  log "dockerd did not become ready in 60 s"
  exit 1
}

have_image() { docker image inspect "$1" >/dev/null 2>&1; }

build_debian() {
  mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$mirror" ] || { log "no Debian mirror found in /etc/apt"; exit 1; }
  security=$(awk '/^URIs:/{print $2}' /etc/apt/sources.list.d/debian.sources 2>/dev/null | grep security | head -1 || true)
  work=$(mktemp -d /tmp/svc-rootfs.XXXXXX)
  log "building $DEBIAN_IMAGE with debootstrap from $mirror"
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -30 "$work/debootstrap.log" >&2; rm -rf "$work"; exit 1; }
  printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$mirror" "$mirror" > "$work/rootfs/etc/apt/sources.list"
  [ -z "$security" ] || printf 'deb %s bookworm-security main\n' "$security" >> "$work/rootfs/etc/apt/sources.list"
  rm -rf "$work"/rootfs/var/cache/apt/archives/*.deb "$work"/rootfs/var/cache/apt/*.bin "$work"/rootfs/var/lib/apt/lists/* \
    "$work"/rootfs/usr/share/doc/* "$work"/rootfs/usr/share/man/* "$work"/rootfs/usr/share/locale/* "$work"/rootfs/usr/share/info/*
  tar -C "$work/rootfs" --numeric-owner -c . \
    | docker import -c 'ENV DEBIAN_FRONTEND=noninteractive' -c 'CMD ["/bin/bash"]' - "$DEBIAN_IMAGE" >/dev/null
  rm -rf "$work"
}

build_haproxy() {
  work=$(mktemp -d /tmp/svc-haproxy.XXXXXX)
  cat > "$work/Dockerfile" <<DOCKERFILE
FROM $DEBIAN_IMAGE
RUN apt-get update \\
 && apt-get install -y --no-install-recommends haproxy pebble ca-certificates curl \\
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]
DOCKERFILE
  log "building $HAPROXY_IMAGE"
  docker build -q -t "$HAPROXY_IMAGE" "$work" >/dev/null 2>"$work/build.log" || { cat "$work/build.log" >&2; rm -rf "$work"; exit 1; }
  rm -rf "$work"
}

build_node() {
  work=$(mktemp -d /tmp/svc-node.XXXXXX)
  node_bin=$(command -v node)
  mkdir -p "$work/root/tmp" "$work/root/usr/bin" && chmod 1777 "$work/root/tmp"
  cp -L "$node_bin" "$work/root/usr/bin/node"
  # The libraries node loads, plus those of the server's native addons for this platform (librt for
  # @node-rs/crc32, libstdc++ for msgpackr-extract): the image has no other libc files.
  addons=$(find node_modules -name '*.node' 2>/dev/null | grep -v -e musl -e darwin -e windows -e aarch64 -e armv7 || true)
  for f in $(ldd "$node_bin" $addons 2>/dev/null | grep -o '/[^ ]*\.so[^ ]*' | sort -u); do
    mkdir -p "$work/root$(dirname "$f")"
    cp -L "$f" "$work/root$f"
  done
  cat > "$work/Dockerfile" <<'DOCKERFILE'
FROM scratch
COPY root/ /
ENV PATH=/usr/bin
ENTRYPOINT ["/usr/bin/node"]
DOCKERFILE
  log "building $NODE_IMAGE from $node_bin"
  docker build -q -t "$NODE_IMAGE" "$work" >/dev/null 2>"$work/build.log" || { cat "$work/build.log" >&2; rm -rf "$work"; exit 1; }
  rm -rf "$work"
}

docker info >/dev/null 2>&1 || start_dockerd
have_image "$DEBIAN_IMAGE" || build_debian
have_image "$HAPROXY_IMAGE" || build_haproxy
have_image "$NODE_IMAGE" || build_node
