/**
 * The fault run's clients: AWS SDK v3 clients spread over the nodes doing PUT, GET, DELETE and multipart
 * uploads on a small key space, retrying 503s and connection errors with a bounded back-off on the next node,
 * and recording every attempt in a {@link History}.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, DeleteObjectCommand,
  GetObjectCommand, PutObjectCommand, S3Client, UploadPartCommand,
} from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { bodyBytes } from '../helpers/s3-client.js';
import type { History } from './history.js';
import type { Rng } from './rng.js';

/** Root or user credentials of the clients. */
export interface Credentials {
  accessKey: string;
  secretKey: string;
}

/** Counters of the clients' operations. */
export interface WorkloadStats {
  ops: number;
  byKind: Record<string, { attempted: number; acknowledged: number }>;
  retries: number;
}

const PART_SIZE = 5 * 1024 * 1024;
const MAX_ATTEMPTS = 8;

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A PUT body: mostly small (stored inline), some beyond 1 MiB so that shard files exist. */
function bodySize(rng: Rng): number {
  const r = rng.next();
  if (r < 0.6) return rng.int(0, 64 * 1024);
  if (r < 0.85) return rng.int(128 * 1024, 1024 * 1024);
  return rng.int(1024 * 1024 + 1, 3 * 1024 * 1024);
}

/** True for failures worth another attempt: 5xx answers and dead or refused connections. */
function retriable(err: unknown): boolean {
  const e = err as { $metadata?: { httpStatusCode?: number }; code?: string; name?: string };
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 500) return true;
  if (status !== undefined) return false;
  return true;
}

/** One S3 client per node URL, shared by the workload's clients. */
export function nodeClients(urls: readonly string[], credentials: Credentials): S3Client[] {
  return urls.map((endpoint) => new S3Client({
    endpoint, region: 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: credentials.accessKey, secretAccessKey: credentials.secretKey },
    requestHandler: new NodeHttpHandler({
      httpAgent: new Agent({ keepAlive: true, maxSockets: 16 }), connectionTimeout: 3_000, requestTimeout: 40_000,
    }),
    maxAttempts: 1,
  }));
}

/**
 * Runs `clients` concurrent clients until `stop()` returns true. Client c starts on node c mod N and moves to
 * the next node after a failed attempt.
 */
export async function runWorkload(opts: {
  /** One client per node (see nodeClients). */
  s3: readonly S3Client[]; bucket: string; keys: readonly string[]; clients: number; rng: Rng; history: History; stop: () => boolean;
}): Promise<WorkloadStats> {
  const { s3, history } = opts;
  const target = { bucket: opts.bucket, keys: opts.keys };
  const stats: WorkloadStats = { ops: 0, byKind: {}, retries: 0 };
  const count = (kind: string, acked: boolean): void => {
    const k = (stats.byKind[kind] ??= { attempted: 0, acknowledged: 0 });
    k.attempted++;
    if (acked) k.acknowledged++;
  };

  const client = async (c: number): Promise<void> => {
    const rng = opts.rng.fork(c);
    let node = c % s3.length;
    /** Runs `call` with retries; resolves with its result, or undefined once the attempts are exhausted. */
    const attempt = async <T>(call: (cl: S3Client) => Promise<T>, onAttempt?: () => void): Promise<{ value: T } | { error: unknown }> => {
      let last: unknown;
      for (let i = 0; i < MAX_ATTEMPTS; i++) {
        onAttempt?.();
        try {
          return { value: await call(s3[node]!) };
        } catch (err) {
          last = err;
          if (!retriable(err)) return { error: err };
          stats.retries++;
          node = (node + 1) % s3.length;
          await sleep(Math.min(2_000, 100 * 2 ** i) * (0.5 + rng.next()));
        }
      }
      return { error: last };
    };

    while (!opts.stop()) {
      const key = rng.pick(target.keys);
      const r = rng.next();
      stats.ops++;
      if (r < 0.45) {
        const body = randomBytes(bodySize(rng));
        const op = history.begin(c, key, 'put', sha(body), body.length);
        const res = await attempt((cl) => cl.send(new PutObjectCommand({ Bucket: target.bucket, Key: key, Body: body })));
        if ('value' in res) history.ack(op);
        count('put', 'value' in res);
      } else if (r < 0.75) {
        let start = 0;
        const res = await attempt(async (cl) => {
          try {
            const out = await cl.send(new GetObjectCommand({ Bucket: target.bucket, Key: key }));
            return sha(await bodyBytes(out.Body));
          } catch (err) {
            if ((err as { name?: string }).name === 'NoSuchKey') return null;
            throw err;
          }
        }, () => { start = history.now(); });
        if ('value' in res) history.read(c, key, res.value, start);
        else history.failedReads++;
        count('get', 'value' in res);
      } else if (r < 0.92) {
        const op = history.begin(c, key, 'delete', null, 0);
        const res = await attempt((cl) => cl.send(new DeleteObjectCommand({ Bucket: target.bucket, Key: key })));
        if ('value' in res) history.ack(op);
        count('delete', 'value' in res);
      } else {
        await multipart(c, key, rng, attempt, count);
      }
    }
  };

  const multipart = async (
    c: number, key: string, rng: Rng,
    attempt: <T>(call: (cl: S3Client) => Promise<T>) => Promise<{ value: T } | { error: unknown }>,
    count: (kind: string, acked: boolean) => void,
  ): Promise<void> => {
    const parts = [randomBytes(PART_SIZE), randomBytes(rng.int(1, 512 * 1024))];
    const created = await attempt((cl) => cl.send(new CreateMultipartUploadCommand({ Bucket: target.bucket, Key: key })));
    if (!('value' in created) || created.value.UploadId === undefined) { count('multipart', false); return; }
    const uploadId = created.value.UploadId;
    const etags: string[] = [];
    for (const [i, part] of parts.entries()) {
      const up = await attempt((cl) => cl.send(new UploadPartCommand({ Bucket: target.bucket, Key: key, UploadId: uploadId, PartNumber: i + 1, Body: part })));
      if (!('value' in up)) break;
      etags.push(up.value.ETag ?? '');
    }
    if (etags.length < parts.length) {
      await attempt((cl) => cl.send(new AbortMultipartUploadCommand({ Bucket: target.bucket, Key: key, UploadId: uploadId })));
      count('multipart', false);
      return;
    }
    const whole = Buffer.concat(parts);
    const op = history.begin(c, key, 'multipart', sha(whole), whole.length);
    const done = await attempt((cl) => cl.send(new CompleteMultipartUploadCommand({
      Bucket: target.bucket, Key: key, UploadId: uploadId,
      MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
    })));
    if ('value' in done) history.ack(op);
    count('multipart', 'value' in done);
  };

  await Promise.all(Array.from({ length: opts.clients }, (_, c) => client(c)));
  return stats;
}
