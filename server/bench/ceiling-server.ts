/**
 * What the machine allows, as a server (issue 9: 4 KiB PUT ≥ 2,500/s durable, GET ≥ 8,000/s at 16 in flight; 64 MiB
 * PUT ≥ 700 MiB/s at 4): `npm run bench -- --ceiling --only small,64MiB` starts this and measures it like any target.
 * It does the least those targets ask of any design here and nothing else, so its figures bound what svc could reach
 * on this machine with its framework (docs/performance.md, fifteenth and nineteenth sessions):
 * - every request: fastify, and the project's own SigV4 check (verifyRequest);
 * - a PUT: the body read, its MD5 (the ETag), and a record of the size of a 4 KiB object's inline record on a 2+2
 *   stripe appended to each of four log files opened with O_DSYNC, the appends of one turn sharing one write per
 *   file (group commit: the commit log's own LogFile); the 200 follows the four synced writes;
 * - a GET: the body from a Map (no lookup on disk, no record decoded);
 * - a PUT of 1 MiB or more (issue 9: 64 MiB PUT ≥ 700 MiB/s at 4 in flight): the body read and its MD5 (the ETag)
 *   by svc's own MD5 worker, nothing stored (CEILING_LARGE, below); its GET sends zeros of its size from memory.
 * Not a product and not S3: no buckets, listings or errors beyond 403/404.
 *
 *   node --import tsx server/bench/ceiling-server.ts DIR ACCESS_KEY SECRET_KEY
 * Prints `{"url": ..., "pid": ...}` on stdout once listening on 127.0.0.1 (a free port).
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Fastify from 'fastify';
import { isSigV4Error, verifyRequest } from '../src/auth/index.js';
import { LogFile } from '../src/storage/drive/commit-log.js';
import { OffloadedMd5 } from '../src/storage/erasure/md5-offload.js';

const [dir, accessKey, secretKey] = process.argv.slice(2);
if (dir === undefined || accessKey === undefined || secretKey === undefined) {
  process.stderr.write('ceiling-server: usage: ceiling-server.ts DIR ACCESS_KEY SECRET_KEY\n');
  process.exit(2);
}

/**
 * What a large PUT does (CEILING_LARGE): `md5` (default) reads the body and computes its MD5 with svc's MD5 worker;
 * `crypto` with node:crypto on the event loop instead; `none` reads the body and drops it. None stores a byte: what a
 * durable erasure-coded write adds (parity, shard files, their syncs) can only lower the figure, so this bounds any
 * design that answers with an MD5 ETag on this machine.
 */
const LARGE_MODE = process.env.CEILING_LARGE ?? 'md5';
if (LARGE_MODE !== 'md5' && LARGE_MODE !== 'crypto' && LARGE_MODE !== 'none') {
  process.stderr.write(`ceiling-server: CEILING_LARGE must be md5, crypto or none, not ${LARGE_MODE}\n`);
  process.exit(2);
}

/** A 4 KiB object's record on one drive of a 2+2 stripe: its 2 KiB shard and ~400 bytes of metadata. */
const RECORD_OVERHEAD = 400;

const logs: LogFile[] = await Promise.all([1, 2, 3, 4].map(async (i) => {
  await mkdir(join(dir, `drive${i}`), { recursive: true });
  const path = join(dir, `drive${i}`, 'log');
  return new LogFile(i, path, await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC));
}));

const objects = new Map<string, Buffer | number>();
/** What a large object's GET sends: zeros of its size (the ceiling keeps no large body; a GET from memory is its bound). */
const zeros = new Map<number, Buffer>();

/** Bodies from this size on take the large path (the bench's 1 MiB and 64 MiB scenarios). */
const LARGE = 1024 * 1024;

/** Reads a large body (see LARGE_MODE); resolves to its ETag. */
async function putLarge(body: AsyncIterable<Buffer>, size: number): Promise<string> {
  if (LARGE_MODE === 'crypto') {
    const h = createHash('md5');
    for await (const c of body) h.update(c);
    return h.digest('hex');
  }
  // svc's own MD5 (md5-offload.ts): a worker hashing uploads that run together in the lanes of a SIMD vector, which
  // beat node:crypto for 64 MiB PUTs at 4 in flight, and an upload alone with node:crypto (docs/performance.md,
  // fourteenth and nineteenth sessions).
  const md5 = LARGE_MODE === 'md5' ? new OffloadedMd5(size) : undefined;
  for await (const c of body) await md5?.push(c);
  return md5 === undefined ? 'not-computed' : (await md5.digest()).toString('hex');
}

const lookup = async (key: string): Promise<string | undefined> => (key === accessKey ? secretKey : undefined);
const app = Fastify({ logger: false });
app.removeAllContentTypeParsers();
app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
app.route({
  method: ['GET', 'HEAD', 'PUT'],
  url: '/*',
  handler: async (request, reply) => {
    const url = request.raw.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q < 0 ? url : url.slice(0, q);
    try {
      await verifyRequest({
        method: request.method, rawPath, rawQuery: q < 0 ? '' : url.slice(q + 1), headers: request.raw.headers, rawHeaders: request.raw.rawHeaders,
      }, lookup, { now: new Date() });
    } catch (err) {
      if (isSigV4Error(err)) return reply.code(403).send();
      throw err;
    }
    if (request.method !== 'PUT') {
      const body = objects.get(rawPath);
      if (body === undefined) return reply.code(404).send();
      reply.header('content-type', 'application/octet-stream');
      if (Buffer.isBuffer(body)) return reply.send(body);
      let z = zeros.get(body);
      if (z === undefined) zeros.set(body, (z = Buffer.alloc(body)));
      return reply.send(z);
    }
    const size = Number(request.headers['content-length'] ?? -1);
    if (size >= LARGE) {
      const etag = await putLarge(request.raw, size);
      objects.set(rawPath, size);
      return reply.header('etag', `"${etag}"`).send();
    }
    const chunks: Buffer[] = [];
    for await (const c of request.raw) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const etag = createHash('md5').update(body).digest('hex');
    // A bucket's creation (one path segment) stores nothing.
    if (rawPath.indexOf('/', 1) > 0) {
      const shard = body.subarray(0, Math.ceil(body.length / 2));
      await Promise.all(logs.map((log) => log.append(Buffer.concat([Buffer.alloc(RECORD_OVERHEAD, 1), shard]))));
      objects.set(rawPath, body);
    }
    return reply.header('etag', `"${etag}"`).send();
  },
});
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, pid: process.pid })}\n`);
