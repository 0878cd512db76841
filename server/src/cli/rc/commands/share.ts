/** `rc share download`: a presigned GET URL that anyone can fetch until it expires. */
import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Command } from 'commander';
import type { RcContext } from '../context.js';
import { UsageError } from '../errors.js';
import { parseDuration } from '../format.js';
import { println } from '../io.js';
import { openBucketPath, s3Call } from './shared.js';

/** SigV4 presigned URLs live at most 7 days (AWS "Authenticating Requests: Using Query Parameters", X-Amz-Expires). */
export const MAX_EXPIRY_SECONDS = 7 * 86_400;

/** `rc share download alias/bucket/key [--expire 7d] [--json]`. */
function shareDownload(ctx: RcContext): Command {
  return new Command('download')
    .description('print a presigned URL that downloads the object without credentials')
    .argument('<target>', 'alias/bucket/key')
    .option('-E, --expire <duration>', 'validity: 30s, 15m, 12h, 7d (at most 7d)', '7d')
    .option('--json', 'print {url, expiresSeconds, expiresAt}')
    .action(async (target: string, opts: { expire: string; json?: boolean }) => {
      const seconds = parseDuration(opts.expire);
      if (seconds === undefined || seconds < 1 || seconds > MAX_EXPIRY_SECONDS) {
        throw new UsageError(`--expire "${opts.expire}" is not a duration between 1s and 7d`, 'e.g. --expire 12h');
      }
      const r = openBucketPath(ctx, target, 'alias/bucket/key');
      if (r.key === '') throw new UsageError(`"${target}" names no object`, 'expected alias/bucket/key');
      try {
        await s3Call(r, () => r.client.send(new HeadObjectCommand({ Bucket: r.bucket, Key: r.key })));
        const url = await getSignedUrl(r.client, new GetObjectCommand({ Bucket: r.bucket, Key: r.key }), { expiresIn: seconds });
        if (opts.json) println(ctx.io, JSON.stringify({ url, expiresSeconds: seconds, expiresAt: new Date(Date.now() + seconds * 1000).toISOString() }));
        else println(ctx.io, url);
      } finally {
        r.client.destroy();
      }
    });
}

/** `rc share`. */
export function shareCommand(ctx: RcContext): Command {
  return new Command('share').description('share objects with presigned URLs').addCommand(shareDownload(ctx));
}
