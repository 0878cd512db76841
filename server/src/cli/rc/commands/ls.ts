/** `rc ls`: buckets of an alias, or objects under `alias/bucket/prefix` (one level, or all with --recursive). */
import { ListBucketsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { Command } from 'commander';
import type { RcContext } from '../context.js';
import { humanBytes, lsDate, padStart } from '../format.js';
import { println } from '../io.js';
import { openRemote, type Remote, s3Call } from './shared.js';

/** One listed entry; the `--json` output is one such object per line. */
export interface LsEntry {
  type: 'bucket' | 'folder' | 'file';
  /** Bucket name, or the key relative to the listed folder (folders end with `/`). */
  key: string;
  size: number;
  /** ISO 8601 UTC, absent for folders. */
  lastModified?: string;
  etag?: string;
}

function print(ctx: RcContext, json: boolean, e: LsEntry): void {
  if (json) { println(ctx.io, JSON.stringify(e)); return; }
  const date = lsDate(e.lastModified === undefined ? undefined : new Date(e.lastModified));
  println(ctx.io, `${date} ${padStart(humanBytes(e.size), 10)} ${e.key}`);
}

async function listBuckets(ctx: RcContext, r: Remote, json: boolean): Promise<void> {
  const out = await s3Call(r, () => r.client.send(new ListBucketsCommand({})));
  for (const b of out.Buckets ?? []) {
    print(ctx, json, { type: 'bucket', key: `${b.Name ?? ''}/`, size: 0, ...(b.CreationDate ? { lastModified: b.CreationDate.toISOString() } : {}) });
  }
}

async function listObjects(ctx: RcContext, r: Remote, recursive: boolean, json: boolean): Promise<void> {
  const base = r.key.slice(0, r.key.lastIndexOf('/') + 1);
  let token: string | undefined;
  do {
    const page = await s3Call(r, () => r.client.send(new ListObjectsV2Command({
      Bucket: r.bucket, Prefix: r.key, ContinuationToken: token, ...(recursive ? {} : { Delimiter: '/' }),
    })));
    const entries: LsEntry[] = [
      ...(page.CommonPrefixes ?? []).map((p): LsEntry => ({ type: 'folder', key: (p.Prefix ?? '').slice(base.length), size: 0 })),
      ...(page.Contents ?? []).map((o): LsEntry => ({
        type: 'file', key: (o.Key ?? '').slice(base.length), size: o.Size ?? 0,
        ...(o.LastModified ? { lastModified: o.LastModified.toISOString() } : {}), ...(o.ETag ? { etag: o.ETag.replaceAll('"', '') } : {}),
      })),
    ].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const e of entries) print(ctx, json, e);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
}

/** `rc ls alias[/bucket[/prefix]] [--recursive] [--json]`. */
export function lsCommand(ctx: RcContext): Command {
  return new Command('ls')
    .description('list buckets, or objects and folders under a prefix')
    .argument('<target>', 'alias, alias/bucket or alias/bucket/prefix')
    .option('-r, --recursive', 'list every object under the prefix, not only one level')
    .option('--json', 'one JSON object per line: {type, key, size, lastModified, etag}')
    .action(async (target: string, opts: { recursive?: boolean; json?: boolean }) => {
      const r = openRemote(ctx, target);
      try {
        if (r.bucket === '') await listBuckets(ctx, r, opts.json === true);
        else await listObjects(ctx, r, opts.recursive === true, opts.json === true);
      } finally {
        r.client.destroy();
      }
    });
}
