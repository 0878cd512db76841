/** `rc mb` and `rc rb`: make and remove buckets. */
import {
  BucketAlreadyOwnedByYou, CreateBucketCommand, DeleteBucketCommand, DeleteObjectsCommand, ListObjectVersionsCommand,
} from '@aws-sdk/client-s3';
import { Command } from 'commander';
import type { RcContext } from '../context.js';
import { EXIT, RcError, UsageError } from '../errors.js';
import { println } from '../io.js';
import { toRcError } from '../s3.js';
import { openBucketPath, type Remote, s3Call } from './shared.js';

function bucketOnly(r: Remote, usage: string): void {
  if (r.key !== '') throw new UsageError(`"${r.text}" is an object path, not a bucket`, `expected ${usage}`);
}

/** `rc mb alias/bucket [--ignore-existing]`. */
export function mbCommand(ctx: RcContext): Command {
  return new Command('mb')
    .description('make a bucket')
    .argument('<target...>', 'alias/bucket')
    .option('-p, --ignore-existing', 'succeed when the bucket already exists')
    .action(async (targets: string[], opts: { ignoreExisting?: boolean }) => {
      for (const t of targets) {
        const r = openBucketPath(ctx, t, 'alias/bucket');
        bucketOnly(r, 'alias/bucket');
        try {
          await r.client.send(new CreateBucketCommand({ Bucket: r.bucket }));
          println(ctx.io, `Bucket created successfully \`${t}\`.`);
        } catch (err) {
          const e = toRcError(err, r.alias.url, t);
          const exists = err instanceof BucketAlreadyOwnedByYou || e.serverCode === 'BucketAlreadyOwnedByYou' || e.serverCode === 'BucketAlreadyExists';
          if (exists && opts.ignoreExisting) continue;
          if (exists) throw new RcError(EXIT.failure, `bucket \`${t}\` already exists`, { hint: 'use --ignore-existing to accept it', serverCode: e.serverCode });
          throw e;
        }
      }
    });
}

/** Deletes every object version and delete marker of the bucket (for `rb --force`), 1000 keys per DeleteObjects. */
async function emptyBucket(r: Remote): Promise<void> {
  let keyMarker: string | undefined;
  let versionMarker: string | undefined;
  for (;;) {
    const page = await s3Call(r, () => r.client.send(new ListObjectVersionsCommand({ Bucket: r.bucket, KeyMarker: keyMarker, VersionIdMarker: versionMarker })));
    const items = [...(page.Versions ?? []), ...(page.DeleteMarkers ?? [])]
      .filter((v) => v.Key !== undefined)
      .map((v) => ({ Key: v.Key as string, ...(v.VersionId !== undefined && v.VersionId !== 'null' ? { VersionId: v.VersionId } : {}) }));
    for (let i = 0; i < items.length; i += 1000) {
      const out = await s3Call(r, () => r.client.send(new DeleteObjectsCommand({ Bucket: r.bucket, Delete: { Objects: items.slice(i, i + 1000), Quiet: true } })));
      const failed = out.Errors?.[0];
      if (failed) throw new RcError(failed.Code === 'AccessDenied' ? EXIT.denied : EXIT.failure, `cannot remove ${r.aliasName}/${r.bucket}/${failed.Key ?? ''}: ${failed.Code ?? 'error'}`);
    }
    if (!page.IsTruncated) return;
    keyMarker = page.NextKeyMarker;
    versionMarker = page.NextVersionIdMarker;
  }
}

/** `rc rb alias/bucket [--force]`. */
export function rbCommand(ctx: RcContext): Command {
  return new Command('rb')
    .description('remove a bucket (it must be empty unless --force)')
    .argument('<target...>', 'alias/bucket')
    .option('--force', 'remove every object and version first')
    .action(async (targets: string[], opts: { force?: boolean }) => {
      for (const t of targets) {
        const r = openBucketPath(ctx, t, 'alias/bucket');
        bucketOnly(r, 'alias/bucket');
        if (opts.force) await emptyBucket(r);
        try {
          await r.client.send(new DeleteBucketCommand({ Bucket: r.bucket }));
        } catch (err) {
          const e = toRcError(err, r.alias.url, t);
          if (e.serverCode === 'BucketNotEmpty') throw new RcError(EXIT.failure, `bucket \`${t}\` is not empty`, { hint: 'use --force to remove its objects too', serverCode: e.serverCode });
          throw e;
        }
        println(ctx.io, `Removed \`${t}\` successfully.`);
      }
    });
}
