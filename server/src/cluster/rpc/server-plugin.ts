/**
 * The storage RPC served on the S3 port (SPEC §1 rule 2; protocol.ts has the wire format): this node's local
 * drives, to its peers only. Every request under `/svc/rpc/` needs a valid node token (auth.ts): without one the
 * answer is 403 with a JSON error and no data, before any body is read.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { ServerError, withDeadline } from '../../common/index.js';
import { readBuffers, type Drive } from '../../storage/index.js';
import type { RpcCredentials } from './auth.js';
import {
  MAX_BATCH_CALLS, MAX_BATCH_DEADLINE_MS, MAX_SHARD_READ, RPC_BATCH_PATH, RPC_PREFIX, SHARD_READ, SHARD_WRITE, decodeValue, encodeValue, isDriveMethod,
} from './protocol.js';
import type { BatchResult } from './protocol.js';
import { toWireError } from './rpc-errors.js';
import { nodeAuthHook, sendWireError } from './node-auth.js';

/** Options of {@link rpcPlugin}. */
export interface RpcPluginOptions {
  /** Root credentials; peers must present a token derived from the same ones. */
  credentials: RpcCredentials;
  /** This node's drives by their path (the `<drive>` URL segment). */
  drives: ReadonlyMap<string, Drive>;
  /** Clock for token expiry (tests). */
  now?: () => number;
}

/** Shard data is handed to the drive in writes of about this size. */
const WRITE_BATCH = 256 * 1024;
const ALL_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

const sendError = sendWireError;

function driveOf(request: FastifyRequest, drives: ReadonlyMap<string, Drive>): Drive | undefined {
  const { drive } = request.params as { drive: string };
  return drives.get(drive);
}

/** `call` once the drive has recovered (Drive.settled: peers may call before this node opened its drives). */
async function whenSettled<T>(drive: Drive, call: () => Promise<T>): Promise<T> {
  await drive.settled?.();
  return call();
}

function argsOf(body: unknown): unknown[] {
  const args = decodeValue((body as { args?: unknown } | null)?.args);
  if (!Array.isArray(args)) throw Object.assign(new Error('request body must be {"args":[…]}'), { statusCode: 400 });
  return args;
}

/** The calls of a batch body, or a 400 error naming what is wrong. */
function batchOf(body: unknown): { deadlineMs: number; calls: { drive: string; method: string; args: unknown[] }[] } {
  const b = body as { deadlineMs?: unknown; calls?: unknown } | null;
  const bad = (why: string): Error => Object.assign(new Error(`batch body: ${why}`), { statusCode: 400 });
  if (b === null || typeof b !== 'object' || !Array.isArray(b.calls)) throw bad('must be {"deadlineMs":n,"calls":[…]}');
  if (b.calls.length === 0 || b.calls.length > MAX_BATCH_CALLS) throw bad(`1 to ${MAX_BATCH_CALLS} calls`);
  const deadlineMs = b.deadlineMs;
  if (typeof deadlineMs !== 'number' || !Number.isSafeInteger(deadlineMs) || deadlineMs < 1 || deadlineMs > MAX_BATCH_DEADLINE_MS) {
    throw bad(`deadlineMs must be 1 to ${MAX_BATCH_DEADLINE_MS}`);
  }
  const calls = b.calls.map((c: unknown) => {
    const x = c as { drive?: unknown; method?: unknown; args?: unknown } | null;
    const args = decodeValue(x?.args);
    if (typeof x?.drive !== 'string' || typeof x.method !== 'string' || !Array.isArray(args)) throw bad('each call is {"drive","method","args":[…]}');
    return { drive: x.drive, method: x.method, args };
  });
  return { deadlineMs, calls };
}

/** One call of a batch: its value, or its error; past `deadlineMs` it is answered unavailable on its own. */
async function batchedCall(drives: ReadonlyMap<string, Drive>, call: { drive: string; method: string; args: unknown[] }, deadlineMs: number): Promise<BatchResult> {
  const drive = drives.get(call.drive);
  if (drive === undefined) return { error: { code: 'ERR_DISK_NOT_FOUND', message: 'drive is not served by this node' } };
  if (!isDriveMethod(call.method)) return { error: { code: 'ERR_RPC_PROTOCOL', message: `unknown drive method ${call.method}` } };
  const fn = drive[call.method] as (...a: unknown[]) => Promise<unknown>;
  try {
    const value = await withDeadline(whenSettled(drive, () => fn.apply(drive, call.args)), deadlineMs,
      () => new ServerError('ERR_RPC_UNAVAILABLE', `drive ${call.drive} did not answer ${call.method} within ${deadlineMs} ms`));
    return { value: encodeValue(value) };
  } catch (err) {
    return { error: toWireError(err) };
  }
}

async function writeShard(drive: Drive, sysPath: string, body: IncomingMessage): Promise<void> {
  const writer = await drive.createShardWriter(sysPath);
  try {
    let batch: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      batch.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= WRITE_BATCH) {
        await writer.write(batch);
        batch = [];
        size = 0;
      }
    }
    if (size > 0) await writer.write(batch);
    await writer.close();
  } catch (err) {
    await writer.abort();
    throw err;
  }
}

/**
 * Fastify plugin serving `POST|PUT /svc/rpc/drive/<drive>/<method>` for `opts.drives`. Register it on the S3
 * listener beside the S3 plugin (its routes are more specific than the S3 catch-all).
 */
export const rpcPlugin: FastifyPluginAsync<RpcPluginOptions> = async (app, opts) => {
  const now = opts.now ?? Date.now;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 64 * 1024 * 1024 }, (_req, body, done) => {
    try {
      done(null, JSON.parse((body as Buffer).toString('utf8')));
    } catch {
      done(Object.assign(new Error('request body is not JSON'), { statusCode: 400 }), undefined);
    }
  });
  // Shard data stays a stream: the handler reads request.raw with backpressure.
  app.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));

  app.addHook('onRequest', nodeAuthHook({ credentials: opts.credentials, now, requireProtocol: true }));

  app.setErrorHandler((err, request, reply) => {
    const status = (err as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) {
      return sendError(reply, 400, { code: 'ERR_RPC_PROTOCOL', message: (err as Error).message });
    }
    return sendError(reply, 500, toWireError(err));
  });

  app.put(`${RPC_PREFIX}/drive/:drive/${SHARD_WRITE}`, async (request, reply) => {
    const drive = driveOf(request, opts.drives);
    if (drive === undefined) return sendError(reply, 404, { code: 'ERR_DISK_NOT_FOUND', message: 'drive is not served by this node' });
    const { path } = request.query as { path?: string };
    if (typeof path !== 'string' || path === '') return sendError(reply, 400, { code: 'ERR_RPC_PROTOCOL', message: 'path is required' });
    await whenSettled(drive, () => writeShard(drive, path, request.raw));
    return reply.send({ value: null });
  });

  // Several JSON calls in one request (protocol.ts, call-batcher.ts): run together, answered in order.
  app.post(RPC_BATCH_PATH, async (request, reply) => {
    const { deadlineMs, calls } = batchOf(request.body);
    const results = await Promise.all(calls.map((c) => batchedCall(opts.drives, c, deadlineMs)));
    return reply.send({ results });
  });

  app.post(`${RPC_PREFIX}/drive/:drive/:method`, async (request, reply) => {
    const drive = driveOf(request, opts.drives);
    if (drive === undefined) return sendError(reply, 404, { code: 'ERR_DISK_NOT_FOUND', message: 'drive is not served by this node' });
    const { method } = request.params as { method: string };
    const args = argsOf(request.body);
    await drive.settled?.();
    if (method === SHARD_READ) {
      // upTo (optional): answer up to that many bytes, fewer only at the end of the file (ShardReader.readSpan).
      const [volume, key, dataDir, file, offset, length, upTo] = args;
      if (typeof volume !== 'string' || typeof key !== 'string' || typeof dataDir !== 'string' || typeof file !== 'string'
        || !Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || (offset as number) < 0 || (length as number) < 0
        || (length as number) > MAX_SHARD_READ
        || (upTo !== undefined && (!Number.isSafeInteger(upTo) || (upTo as number) < (length as number) || (upTo as number) > MAX_SHARD_READ))) {
        return sendError(reply, 400, { code: 'ERR_RPC_PROTOCOL', message: 'shard-read needs [volume, key, dataDir, file, offset, length, upTo?]' });
      }
      const reader = await drive.openShardReader(volume, key, dataDir, file);
      try {
        const data = upTo !== undefined && reader.readSpan !== undefined
          ? await reader.readSpan(offset as number, length as number, upTo as number)
          : await reader.read(offset as number, length as number);
        // Large reads come in pooled read buffers (direct-read.ts): once the response has finished, the kernel holds
        // the bytes and the buffer goes back to the pool, so a peer's shard reads do not allocate per request (each
        // allocation counts towards V8's next full GC: docs/performance.md, seventeenth session). A response that
        // never finishes (the caller went away) leaves its buffer to the garbage collector.
        reply.raw.once('finish', () => readBuffers.recycle(data));
        return reply.type('application/octet-stream').send(data);
      } finally {
        await reader.close();
      }
    }
    if (!isDriveMethod(method)) return sendError(reply, 400, { code: 'ERR_RPC_PROTOCOL', message: `unknown drive method ${method}` });
    const fn = drive[method] as (...a: unknown[]) => Promise<unknown>;
    const value = await fn.apply(drive, args);
    return reply.send({ value: encodeValue(value) });
  });

  // Anything else under the prefix: authenticated by the hook above, then refused.
  app.route({
    method: [...ALL_METHODS], url: `${RPC_PREFIX}/*`,
    handler: async (_request, reply) => sendError(reply, 404, { code: 'ERR_RPC_PROTOCOL', message: 'unknown RPC route' }),
  });
};

Object.assign(rpcPlugin, { [Symbol.for('plugin-meta')]: { name: 'svc-rpc', fastify: '5.x' } });
