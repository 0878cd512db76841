/**
 * Whether a PUT costs more as a key's versions pile up (issue 9): `npm run bench:versions [-- --versions N --every E
 * --size B]`. Starts the built server on 4 drives, PUTs N versions of one key of B bytes (default 4096: inline in the
 * record) into a versioned bucket one after the other with the AWS SDK, and prints one JSON line per E versions: the mean
 * milliseconds per PUT over them. Every version of a key lives in its one record, so the lines grow with the versions;
 * until the thirty-ninth session each rewrite also looked every older version up in each drive's list (quadratic).
 */
import { CreateBucketCommand, PutBucketVersioningCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { checkLayoutEnv, checkOptions, optionCount } from './cli-options.js';
import { startWithSdk } from './sdk-server.js';

checkOptions('bench:versions', `Usage: npm run bench:versions [-- --versions N --every E --size B]
PUTs N versions (default 1000) of one key of B bytes (default 4096) into a versioned bucket, one after the other,
and prints the mean milliseconds per PUT over every E versions (default 250); one JSON line each.
Options:
  --versions N           versions written (default 1000)
  --every E              versions per line (default 250)
  --size B               bytes per version (default 4096, at most 64 MiB)
  -h, --help             this text
`, { values: ['--versions', '--every', '--size'] });
checkLayoutEnv('bench:versions');

const versions = optionCount('bench:versions', '--versions', 1000);
const every = optionCount('bench:versions', '--every', 250);
const size = optionCount('bench:versions', '--size', 4096);
if (size > 64 * 1024 * 1024) {
  process.stderr.write(`bench:versions: --size must be at most 67108864 (64 MiB), not ${size}\n`);
  process.exit(2);
}
const { client, stop } = await startWithSdk();
try {
  await client.send(new CreateBucketCommand({ Bucket: 'versions' }));
  await client.send(new PutBucketVersioningCommand({ Bucket: 'versions', VersioningConfiguration: { Status: 'Enabled' } }));
  const body = Buffer.alloc(size, 7);
  let t0 = performance.now();
  for (let n = 1; n <= versions; n++) {
    await client.send(new PutObjectCommand({ Bucket: 'versions', Key: 'one-key', Body: body }));
    if (n % every === 0 || n === versions) {
      const now = performance.now();
      const first = n - ((n - 1) % every);
      process.stdout.write(`${JSON.stringify({ scenario: 'put-version', size, versions: `${first}-${n}`, msPerPut: +((now - t0) / (n - first + 1)).toFixed(2) })}\n`);
      t0 = now;
    }
  }
} finally {
  await stop();
}
