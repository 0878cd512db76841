/** Helpers shared by the object commands: resolving `alias/bucket/key` and running S3 calls with mapped errors. */
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import type { RcContext } from '../context.js';
import { UsageError } from '../errors.js';
import { parseRemote, type RemotePath } from '../paths.js';
import { s3ClientFor, toRcError } from '../s3.js';

/** A remote path with its client. */
export interface Remote extends RemotePath {
  client: S3Client;
}

/** Resolves `text` as a remote path (exit 3 for an unknown alias) and opens a client for it. */
export function openRemote(ctx: RcContext, text: string): Remote {
  const p = parseRemote(ctx.config(), text);
  return { ...p, client: s3ClientFor(p.alias) };
}

/** Like {@link openRemote}, but the path must name at least a bucket. */
export function openBucketPath(ctx: RcContext, text: string, usage: string): Remote {
  const r = openRemote(ctx, text);
  if (r.bucket === '') throw new UsageError(`"${text}" names no bucket`, `expected ${usage}`);
  return r;
}

/** Runs `fn`, translating any failure into an RcError about `r` (errors of s3.ts). */
export async function s3Call<T>(r: Pick<RemotePath, 'alias' | 'text'>, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toRcError(err, r.alias.url, r.text);
  }
}

/** Object keys under `prefix` (all pages), with sizes. */
export async function* listKeys(r: Remote, prefix: string): AsyncGenerator<{ key: string; size: number; lastModified: Date | undefined; etag: string | undefined }> {
  let token: string | undefined;
  do {
    const page = await s3Call(r, () => r.client.send(new ListObjectsV2Command({ Bucket: r.bucket, Prefix: prefix, ContinuationToken: token })));
    for (const o of page.Contents ?? []) {
      if (o.Key !== undefined) yield { key: o.Key, size: o.Size ?? 0, lastModified: o.LastModified, etag: o.ETag };
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
}
