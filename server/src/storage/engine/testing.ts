import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ObjectLayer, ObjectMetadataInput } from './object-layer.js';
import { openStorage } from './open-storage.js';
import type { OpenStorageOptions, Storage } from './open-storage.js';

/** Helpers shared by the engine tests (real drives in a temp directory). */

/** A temp directory holding `sets` × `perSet` drive roots. */
export interface TestCluster {
  dir: string;
  sets: string[][];
  open(opts?: Partial<OpenStorageOptions>): Promise<Storage>;
  cleanup(): Promise<void>;
}

/** Creates drive paths under a fresh temp directory (the drives themselves are created by openStorage). */
export async function testCluster(setCount: number, perSet: number, parity: number): Promise<TestCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-storage-'));
  const sets = Array.from({ length: setCount }, (_, s) => Array.from({ length: perSet }, (_, i) => join(dir, `s${s}d${i}`)));
  const opened: Storage[] = [];
  return {
    dir,
    sets,
    async open(opts) {
      const st = await openStorage({ sets, parity, driveCheckIntervalMs: 3_600_000, ...opts });
      opened.push(st);
      return st;
    },
    async cleanup() {
      await Promise.all(opened.map((s) => s.close().catch(() => undefined)));
      // Retried: a drive call still in flight at close may have reopened its key index, whose worker flushes into it.
      await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

/** No metadata. */
export const NO_META: ObjectMetadataInput = { system: {}, user: {} };

/** Deterministic pseudo-random bytes. */
export function pattern(size: number, seed = 1): Buffer {
  const b = Buffer.allocUnsafe(size);
  let x = seed * 2654435761 >>> 0;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

/** Reads a whole stream. */
export async function collect(s: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** PUTs a buffer. */
export async function put(st: ObjectLayer, bucket: string, key: string, data: Buffer): Promise<void> {
  await st.putObject(bucket, key, Readable.from([data]), { size: data.length, metadata: NO_META });
}

/** GETs a whole object. */
export async function get(st: ObjectLayer, bucket: string, key: string): Promise<Buffer> {
  return collect((await st.openObject(bucket, key)).read());
}

/** MD5 hex. */
export function md5hex(data: Buffer): string {
  return createHash('md5').update(data).digest('hex');
}
