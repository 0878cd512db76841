/**
 * Executing one planned copy: uploads through lib-storage (multipart above one part, AWS "Uploading and copying
 * objects using multipart upload"), downloads into a temp file renamed into place, and server-side CopyObject when
 * both ends are on the same alias.
 */
import { CopyObjectCommand, GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createReadStream, createWriteStream, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EXIT, RcError } from '../errors.js';
import type { Progress } from '../progress.js';
import { s3ClientFor, toRcError } from '../s3.js';
import { describe, type Endpoint, type Transfer } from './cp-plan.js';

const MiB = 1024 * 1024;
/** CopyObject copies at most 5 GiB in one call (AWS CopyObject: "up to 5 GB in size in a single atomic action"). */
const COPY_OBJECT_MAX = 5 * 1024 * MiB;
/** S3 allows at most 10,000 parts, so the part size grows with the object. */
const MAX_PARTS = 10_000;

/** Clients per alias, created on demand and closed together. */
export class ClientPool {
  readonly #clients = new Map<string, S3Client>();
  /** The client of `e`'s alias. */
  get(e: Extract<Endpoint, { kind: 'remote' }>): S3Client {
    const name = e.remote.aliasName;
    let c = this.#clients.get(name);
    if (c === undefined) {
      c = s3ClientFor(e.remote.alias);
      this.#clients.set(name, c);
    }
    return c;
  }
  /** Closes every client. */
  close(): void {
    for (const c of this.#clients.values()) c.destroy();
  }
}

function counter(progress: Progress): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      progress.add(chunk.length);
      cb(null, chunk);
    },
  });
}

async function upload(client: S3Client, to: Extract<Endpoint, { kind: 'remote' }>, body: Readable, size: number, progress: Progress): Promise<void> {
  const partSize = Math.max(16 * MiB, Math.ceil(size / MAX_PARTS));
  const up = new Upload({ client, params: { Bucket: to.bucket, Key: to.key, Body: body, ContentLength: size }, partSize, queueSize: 4, leavePartsOnError: false });
  let loaded = 0;
  up.on('httpUploadProgress', (p) => {
    const now = p.loaded ?? loaded;
    if (now > loaded) { progress.add(now - loaded); loaded = now; }
  });
  await up.done();
  if (size > loaded) progress.add(size - loaded);
}

async function download(client: S3Client, from: Extract<Endpoint, { kind: 'remote' }>): Promise<Readable> {
  const out = await client.send(new GetObjectCommand({ Bucket: from.bucket, Key: from.key }));
  if (out.Body === undefined) throw new RcError(EXIT.failure, `${describe(from)}: the server sent no body`);
  return out.Body as Readable;
}

function copySource(bucket: string, key: string): string {
  // x-amz-copy-source is `bucket/key` URL-encoded, keeping the `/` separators (AWS CopyObject request syntax).
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

/** Copies one planned transfer, reporting bytes to `progress`; failures are RcErrors naming the object. */
export async function runTransfer(t: Transfer, clients: ClientPool, progress: Progress): Promise<void> {
  const { from, to } = t;
  const failing = from.kind === 'remote' ? from : to.kind === 'remote' ? to : undefined;
  try {
    if (from.kind === 'local' && to.kind === 'remote') {
      await upload(clients.get(to), to, createReadStream(from.path), t.size, progress);
    } else if (from.kind === 'remote' && to.kind === 'local') {
      mkdirSync(dirname(to.path), { recursive: true });
      const tmp = `${to.path}.rc-${process.pid}.part`;
      try {
        await pipeline(await download(clients.get(from), from), counter(progress), createWriteStream(tmp));
        renameSync(tmp, to.path);
      } finally {
        rmSync(tmp, { force: true });
      }
    } else if (from.kind === 'remote' && to.kind === 'remote') {
      if (from.remote.aliasName === to.remote.aliasName && t.size <= COPY_OBJECT_MAX) {
        await clients.get(to).send(new CopyObjectCommand({ Bucket: to.bucket, Key: to.key, CopySource: copySource(from.bucket, from.key) }));
        progress.add(t.size);
      } else {
        await upload(clients.get(to), to, await download(clients.get(from), from), t.size, progress);
      }
    }
  } catch (err) {
    if (err instanceof RcError || failing === undefined) throw err;
    throw toRcError(err, failing.remote.alias.url, `${describe(from)} -> ${describe(to)}`);
  }
}
