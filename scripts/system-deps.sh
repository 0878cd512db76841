#!/bin/sh
# Debian packages used by the test suite as real S3 clients, real proxies and real containers:
#   awscli, s3cmd, rclone, python3-boto3 - independent S3 clients (SigV4, multipart, checksums)
#   haproxy                             - `haproxy -c` validation of rendered configs
#   util-linux (script, unshare)        - pseudo-terminal for prompt tests, mount namespaces for nodes
#   docker.io, docker-compose           - the Docker engine and compose v1 for the integration suite (DOCKER.md §1, §4)
#   debootstrap                         - the Debian base image built without a registry (DOCKER.md §1a)
#   pebble                              - the ACME test CA (DOCKER.md §3)
#   chromium                            - headless browser for the console tests (driven by playwright-core)
#   e2fsprogs, mount                    - journal-less ext4 images on loop devices for the power-cut tests
#   gcc, libc6-dev                      - the server's C addons (scripts/build-native.sh), whose tests need them built
# Installed only when missing; needs root (tests run as root in CI).
set -eu
need=""
for p in awscli s3cmd rclone python3-boto3 haproxy util-linux docker.io docker-compose debootstrap pebble chromium e2fsprogs mount gcc libc6-dev; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
  if [ "$(id -u)" != "0" ]; then
    echo "system-deps: missing Debian packages:$need (run as root or: sudo apt-get install$need)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # Neither haproxy nor docker may start a system service: the tests run their own instances
  # (scripts/docker-engine.sh starts dockerd itself).
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  apt-get install -y -qq --no-install-recommends $need
  rm -f /usr/sbin/policy-rc.d
fi
