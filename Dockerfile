# The svc server image: a drop-in for tools that expect MinIO's image (REFERENCE.md §5):
#   docker run -p 9000:9000 -p 9001:9001 -e MINIO_ROOT_USER=... -e MINIO_ROOT_PASSWORD=... IMAGE server --console-address :9001 /data
#
# It copies the server as built on the host (`sh scripts/setup.sh`): server/bin, server/dist/src, server/dist/console and the
# production dependencies in node_modules. No package manager or registry is needed during the build, so
# air-gapped builds only have to name a local base image that provides `node` (glibc, Node 20):
#   docker build --build-arg BASE_IMAGE=svc-test/node:20 -t svc/server:latest .
# `deploy-kit images build` stages only the server's production dependencies into the context (the repository
# root as a context works too, with every installed package). The native addons (@ronomon/reed-solomon,
# highwayhasher, @node-rs/crc32, msgpackr-extract, server/native) are glibc builds: use a glibc base, never Alpine.
ARG BASE_IMAGE=node:20-bookworm-slim
FROM ${BASE_IMAGE}

ENV NODE_ENV=production
# WORKDIR creates the directory even in a FROM-scratch base that has no shell.
WORKDIR /data
WORKDIR /app
COPY package.json ./
COPY server/package.json ./server/
COPY node_modules/ ./node_modules/
COPY server/bin/ ./server/bin/
COPY server/dist/src/ ./server/dist/src/
# The console front end (built by scripts/setup.sh with Vite): static files the console listener serves.
COPY server/dist/console/ ./server/dist/console/
# The server's C addon (scripts/build-native.sh; the MD5 lanes with AVX-512VL, WebAssembly where absent).
COPY server/native/build/ ./server/native/build/

# 9000: S3 API and probes; 9001: console (SPEC §4 rule 1).
EXPOSE 9000 9001
# Exec form with node: the image may have no shell and no curl (DOCKER.md §1b).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=5 \
  CMD ["node", "-e", "require('http').get('http://127.0.0.1:9000/health/ready',r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1)).setTimeout(4000,function(){this.destroy()})"]
# The node options are the ones on server/bin/svc.js's first line (why: there); a test keeps them equal.
ENTRYPOINT ["node", "--heap-growing-percent=100", "--incremental-marking-hard-trigger=100", "/app/server/bin/svc.js"]
CMD ["server", "--console-address", ":9001", "/data"]
