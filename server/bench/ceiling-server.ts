/**
 * What the machine allows small objects, as a server (issue 9: 4 KiB PUT ≥ 2,500/s durable, GET ≥ 8,000/s at 16 in
 * flight): `npm run bench -- --ceiling --only small` starts this and measures it like any target. It does the least
 * those targets ask of any design here and nothing else, so its figures bound what svc could reach on this machine
 * with its framework (docs/performance.md, fifteenth session):
 * - every request: fastify, and the project's own SigV4 check (verifyRequest);
 * - a PUT: the body read, its MD5 (the ETag), and a record of the size of a 4 KiB object's inline record on a 2+2
 *   stripe appended to each of four log files opened with O_DSYNC, the appends of one turn sharing one write per
 *   file (group commit: the commit log's own LogFile); the 200 follows the four synced writes;
 * - a GET: the body from a Map (no lookup on disk, no record decoded).
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

const [dir, accessKey, secretKey] = process.argv.slice(2);
if (dir === undefined || accessKey === undefined || secretKey === undefined) {
  process.stderr.write('ceiling-server: usage: ceiling-server.ts DIR ACCESS_KEY SECRET_KEY\n');
  process.exit(2);
}

/** A 4 KiB object's record on one drive of a 2+2 stripe: its 2 KiB shard and ~400 bytes of metadata. */
const RECORD_OVERHEAD = 400;

const logs: LogFile[] = await Promise.all([1, 2, 3, 4].map(async (i) => {
  await mkdir(join(dir, `drive${i}`), { recursive: true });
  const path = join(dir, `drive${i}`, 'log');
  return new LogFile(i, path, await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC));
}));

const objects = new Map<string, Buffer>();
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
      return body === undefined ? reply.code(404).send() : reply.header('content-type', 'application/octet-stream').send(body);
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
