/**
 * Issue 9, point 2: "every object durable (fsync'd on write quorum before the 200)", shown end to end. The real server
 * runs on four drives of a journal-less ext4 file system on a loop device (test/helpers/power-cut.ts); right after
 * the AWS SDK got its answers the power is cut (the device's bytes copied while the server is stopped), and a new
 * server started on the copy must serve every object it acknowledged, byte for byte.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand, GetObjectCommand, PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { startSvc, type SvcProcess } from '../helpers/svc-process.js';
import { bodyBytes, s3Client } from '../helpers/s3-client.js';
import { journalLessDisk, powerCut, settle, type Disk } from '../helpers/power-cut.js';

const BUCKET = 'cut';

test('power cut: a new server on what reached the disk serves every object the first one answered 200 for', async (t) => {
  const servers: SvcProcess[] = [];
  // Registered before the disks' hooks (they run in registration order): no server is left on a file system being
  // unmounted.
  t.after(async () => {
    for (const s of servers) await s.kill9();
  });
  const disk = await journalLessDisk(t, 512);
  const first = await startSvc({ drives: 4, dir: disk.mount });
  servers.push(first);
  const creds = { accessKey: first.accessKey, secretKey: first.secretKey };
  const s3 = s3Client(first.url, creds.accessKey, creds.secretKey);
  // The drives' formats and the server's own start-up writes: on the device before the test's writes begin.
  await settle(disk);

  const objects = new Map<string, Buffer>();
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  // Large objects (data directories on the drives) and a multipart upload; no small object yet, so no commit-log
  // checkpoint syncs the file system behind the test's back (commit-log.ts).
  for (const [key, size] of [['large-8MiB', 8 << 20], ['dir/large-1MiB', 1 << 20]] as const) {
    const body = randomBytes(size);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
    objects.set(key, body);
  }
  const parts = [randomBytes(5 << 20), randomBytes(1 << 20)];
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'multipart' }));
  const etags: string[] = [];
  for (const [i, part] of parts.entries()) {
    const r = await s3.send(new UploadPartCommand({ Bucket: BUCKET, Key: 'multipart', UploadId, PartNumber: i + 1, Body: part }));
    etags.push(r.ETag!);
  }
  await s3.send(new CompleteMultipartUploadCommand({
    Bucket: BUCKET, Key: 'multipart', UploadId, MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) },
  }));
  objects.set('multipart', Buffer.concat(parts));
  const cutLarge = await powerCut(t, disk, first.proc);
  const large = new Map(objects);

  // Small objects: stored inline, made durable by the drives' commit logs.
  for (let i = 0; i < 24; i++) {
    const body = randomBytes(4096);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `small/${i}`, Body: body }));
    objects.set(`small/${i}`, body);
  }
  const cutSmall = await powerCut(t, disk, first.proc);

  await first.kill9();
  for (const [cut, expected] of [[cutLarge, large], [cutSmall, objects]] as [Disk, Map<string, Buffer>][]) {
    const next = await startSvc({ drives: 4, dir: cut.mount, credentials: creds });
    servers.push(next);
    const c = s3Client(next.url, creds.accessKey, creds.secretKey);
    for (const [key, body] of expected) {
      // A failure names the key and what e2fsck repaired on the cut disk (what a boot would have done to it).
      const got = await c.send(new GetObjectCommand({ Bucket: BUCKET, Key: key })).catch((err: Error) => {
        throw new Error(`${key} after the cut: ${err.message}\ne2fsck: ${cut.repairs ?? ''}`, { cause: err });
      });
      assert.ok((await bodyBytes(got.Body)).equals(body), `${key} after the cut`);
    }
    await next.kill9();
  }
});
