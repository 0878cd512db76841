/**
 * Whether an UploadPart costs more as an upload's parts pile up (issue 9; UploadPart read every earlier part's record
 * until the thirty-ninth session): `npm run bench:parts [-- --parts N --every E]`. Starts the built server on 4 drives,
 * uploads N parts of 1 KiB to one multipart upload one after the other with the AWS SDK, and prints one JSON line per
 * E parts: the mean milliseconds per part over them. Flat lines mean a part's cost does not grow with the upload.
 */
import { CreateBucketCommand, CreateMultipartUploadCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { checkLayoutEnv, checkOptions, optionCount } from './cli-options.js';
import { startWithSdk } from './sdk-server.js';

checkOptions('bench:parts', `Usage: npm run bench:parts [-- --parts N --every E]
Uploads N parts of 1 KiB (default 2000) to one multipart upload, one after the other, and prints the mean
milliseconds per part over every E parts (default 500); one JSON line each.
Options:
  --parts N              parts uploaded (default 2000, at most 10000)
  --every E              parts per line (default 500)
  -h, --help             this text
`, { values: ['--parts', '--every'] });
checkLayoutEnv('bench:parts');

const parts = optionCount('bench:parts', '--parts', 2000);
const every = optionCount('bench:parts', '--every', 500);
if (parts > 10_000) {
  process.stderr.write(`bench:parts: --parts must be at most 10000 (S3's largest part number), not ${parts}\n`);
  process.exit(2);
}
const { client, stop } = await startWithSdk();
try {
  await client.send(new CreateBucketCommand({ Bucket: 'parts' }));
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: 'parts', Key: 'many' }));
  const body = Buffer.alloc(1024, 7);
  let t0 = performance.now();
  for (let n = 1; n <= parts; n++) {
    await client.send(new UploadPartCommand({ Bucket: 'parts', Key: 'many', UploadId, PartNumber: n, Body: body }));
    if (n % every === 0 || n === parts) {
      const now = performance.now();
      const first = n - ((n - 1) % every);
      process.stdout.write(`${JSON.stringify({ scenario: 'upload-part', parts: `${first}-${n}`, msPerPart: +((now - t0) / (n - first + 1)).toFixed(2) })}\n`);
      t0 = now;
    }
  }
} finally {
  await stop();
}
