/** `rc cat`, `rc rm` and `rc stat`: reading, removing and describing objects. */
import { DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { Command } from 'commander';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { RcContext } from '../context.js';
import { EXIT, RcError, UsageError } from '../errors.js';
import { humanBytes } from '../format.js';
import { println } from '../io.js';
import { toRcError } from '../s3.js';
import { listKeys, openBucketPath, type Remote, s3Call } from './shared.js';

function objectPath(ctx: RcContext, text: string): Remote {
  const r = openBucketPath(ctx, text, 'alias/bucket/key');
  if (r.key === '' || r.key.endsWith('/')) throw new UsageError(`"${text}" names no object`, 'expected alias/bucket/key');
  return r;
}

/** `rc cat alias/bucket/key...`: writes the objects to stdout. */
export function catCommand(ctx: RcContext): Command {
  return new Command('cat')
    .description('write objects to standard output')
    .argument('<source...>', 'alias/bucket/key')
    .action(async (sources: string[]) => {
      for (const s of sources) {
        const r = objectPath(ctx, s);
        try {
          const out = await s3Call(r, () => r.client.send(new GetObjectCommand({ Bucket: r.bucket, Key: r.key })));
          try {
            await pipeline(out.Body as Readable, ctx.io.stdout, { end: false });
          } catch (err) {
            // The reader went away (`| head`): stop quietly, as cat(1) does.
            if ((err as NodeJS.ErrnoException).code === 'EPIPE' || (err as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE') return;
            throw toRcError(err, r.alias.url, s);
          }
        } finally {
          r.client.destroy();
        }
      }
    });
}

async function removeMany(r: Remote, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) {
    const batch = keys.slice(i, i + 1000).map((Key) => ({ Key }));
    const out = await s3Call(r, () => r.client.send(new DeleteObjectsCommand({ Bucket: r.bucket, Delete: { Objects: batch, Quiet: true } })));
    const failed = out.Errors?.[0];
    if (failed) {
      throw new RcError(failed.Code === 'AccessDenied' ? EXIT.denied : EXIT.failure, `cannot remove ${r.aliasName}/${r.bucket}/${failed.Key ?? ''} (${failed.Code ?? 'error'})`);
    }
  }
}

/** `rc rm alias/bucket/key...` and `rc rm --recursive --force alias/bucket/prefix`. */
export function rmCommand(ctx: RcContext): Command {
  return new Command('rm')
    .description('remove objects')
    .argument('<target...>', 'alias/bucket/key, or alias/bucket/prefix with --recursive --force')
    .option('-r, --recursive', 'remove every object under the prefix (needs --force)')
    .option('--force', 'confirm a recursive removal')
    .action(async (targets: string[], opts: { recursive?: boolean; force?: boolean }) => {
      if (opts.recursive && !opts.force) throw new UsageError('--recursive removes every object under the prefix', 'add --force to confirm');
      for (const t of targets) {
        const r = opts.recursive ? openBucketPath(ctx, t, 'alias/bucket[/prefix]') : objectPath(ctx, t);
        try {
          if (opts.recursive) {
            const keys: string[] = [];
            for await (const o of listKeys(r, r.key)) keys.push(o.key);
            await removeMany(r, keys);
            println(ctx.io, `Removed ${keys.length} object${keys.length === 1 ? '' : 's'} under \`${t}\`.`);
          } else {
            // DeleteObject succeeds for a missing key (AWS DeleteObject), so a typo would pass silently without this check.
            await s3Call(r, () => r.client.send(new HeadObjectCommand({ Bucket: r.bucket, Key: r.key })));
            await removeMany(r, [r.key]);
            println(ctx.io, `Removed \`${t}\`.`);
          }
        } finally {
          r.client.destroy();
        }
      }
    });
}

/** The `rc stat --json` object (sizes in bytes, times ISO 8601 UTC). */
export interface StatReport {
  type: 'bucket' | 'file';
  name: string;
  size?: number;
  lastModified?: string;
  etag?: string;
  contentType?: string;
  versionId?: string;
  metadata?: Record<string, string>;
}

/** `rc stat alias/bucket[/key] [--json]`. */
export function statCommand(ctx: RcContext): Command {
  return new Command('stat')
    .description('show an object\'s (or a bucket\'s) metadata')
    .argument('<target>', 'alias/bucket or alias/bucket/key')
    .option('--json', 'print {type, name, size, lastModified, etag, contentType, versionId, metadata}')
    .action(async (target: string, opts: { json?: boolean }) => {
      const r = openBucketPath(ctx, target, 'alias/bucket[/key]');
      let report: StatReport;
      try {
        if (r.key === '') {
          await s3Call(r, () => r.client.send(new HeadBucketCommand({ Bucket: r.bucket })));
          report = { type: 'bucket', name: r.bucket };
        } else {
          const h = await s3Call(r, () => r.client.send(new HeadObjectCommand({ Bucket: r.bucket, Key: r.key })));
          report = {
            type: 'file', name: r.key, size: h.ContentLength ?? 0,
            ...(h.LastModified ? { lastModified: h.LastModified.toISOString() } : {}),
            ...(h.ETag ? { etag: h.ETag.replaceAll('"', '') } : {}),
            ...(h.ContentType ? { contentType: h.ContentType } : {}),
            ...(h.VersionId ? { versionId: h.VersionId } : {}),
            metadata: h.Metadata ?? {},
          };
        }
      } finally {
        r.client.destroy();
      }
      if (opts.json) { println(ctx.io, JSON.stringify(report, null, 2)); return; }
      println(ctx.io, `Name      : ${report.name}`);
      println(ctx.io, `Type      : ${report.type}`);
      if (report.type === 'file') {
        println(ctx.io, `Size      : ${humanBytes(report.size ?? 0)} (${report.size ?? 0} bytes)`);
        if (report.lastModified) println(ctx.io, `Date      : ${report.lastModified}`);
        if (report.etag) println(ctx.io, `ETag      : ${report.etag}`);
        if (report.contentType) println(ctx.io, `Content   : ${report.contentType}`);
        if (report.versionId) println(ctx.io, `VersionID : ${report.versionId}`);
        for (const [k, v] of Object.entries(report.metadata ?? {})) println(ctx.io, `Metadata  : ${k}: ${v}`);
      }
    });
}
