/**
 * Must show 2 (issue 2), on a real 4-drive EC:2 server process: a flipped byte inside a shard file is
 * reconstructed on GET and repaired on disk; with two drives wiped reads and writes still work; with three
 * drives gone /health/ready is 503 storage_quorum_unavailable and writes fail with a clear S3 error; once the
 * drives come back the server is ready again with every object intact.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { startSvc } from '../helpers/svc-process.js';
import { bodyBytes, eventually, s3Client } from '../helpers/s3-client.js';
import { shardFiles, shardIndexOn } from '../helpers/drive-files.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

test('bitrot repair, two wiped drives, three lost drives and recovery', async (t) => {
  const svc = await startSvc({ drives: 4 });
  t.after(async () => { await svc.stop(); svc.cleanup(); });
  const s3 = s3Client(svc.url, svc.accessKey, svc.secretKey);
  t.after(() => s3.destroy());
  const objects = new Map<string, string>();
  const put = async (key: string, body: Buffer) => {
    await s3.send(new PutObjectCommand({ Bucket: 'faults', Key: key, Body: body }));
    objects.set(key, sha(body));
  };
  const readBack = async (key: string) => sha(await bodyBytes((await s3.send(new GetObjectCommand({ Bucket: 'faults', Key: key }))).Body));
  const ready = async () => (await fetch(`${svc.url}/health/ready`)).status === 200;

  await s3.send(new CreateBucketCommand({ Bucket: 'faults' }));
  await put('small.txt', randomBytes(1024));
  await put('dir/four-mib.bin', randomBytes(4 * 1024 * 1024 + 17));
  await put('twenty-mib.bin', randomBytes(20 * 1024 * 1024));

  // 1. Bitrot: flip bytes in the middle of a data shard (a healthy GET reads the K data shards only, as MinIO).
  const k = 2;
  const dataDrive = svc.drives.find((d) => shardIndexOn(d, 'faults', 'dir/four-mib.bin') <= k) ?? '';
  const [shard] = shardFiles(dataDrive, 'faults', 'dir/four-mib.bin');
  assert.ok(shard, 'the 4 MiB object has a data shard file');
  const original = readFileSync(shard);
  const damaged = Buffer.from(original);
  for (let i = 0; i < 64; i++) damaged[Math.floor(damaged.length / 2) + i] ^= 0xff;
  writeFileSync(shard, damaged);
  assert.equal(await readBack('dir/four-mib.bin'), objects.get('dir/four-mib.bin'), 'GET returns the original bytes');
  const repaired = await eventually(async () => readFileSync(shard).equals(original), 20_000);
  assert.ok(repaired, 'the damaged shard was rewritten on disk');

  // 2. Wipe two drives (their contents are gone, as with replaced disks): reads and writes still work.
  for (const d of [svc.drives[2], svc.drives[3]]) {
    for (const n of readdirSync(d ?? '')) rmSync(join(d ?? '', n), { recursive: true, force: true, maxRetries: 5 });
  }
  for (const [key, digest] of objects) assert.equal(await readBack(key), digest, `${key} readable with two drives wiped`);
  assert.ok(await eventually(ready, 30_000), 'ready with two of four drives wiped');
  await put('after-wipe.bin', randomBytes(3 * 1024 * 1024));
  assert.equal(await readBack('after-wipe.bin'), objects.get('after-wipe.bin'));

  // 3. Three drives gone (pulled out: their directories are emptied and their contents kept aside).
  const away = svc.drives.slice(1).map((d) => ({ d, aside: `${d}.away` }));
  for (const { d, aside } of away) { renameSync(d, aside); mkdirSync(d); }
  const degraded = await eventually(async () => {
    const r = await fetch(`${svc.url}/health/ready`);
    if (r.status !== 503) return false;
    const body = await r.json() as { degradedReasons: string[] };
    return body.degradedReasons.includes('storage_quorum_unavailable');
  }, 30_000);
  assert.ok(degraded, '/health/ready is 503 with storage_quorum_unavailable');
  await assert.rejects(
    s3.send(new PutObjectCommand({ Bucket: 'faults', Key: 'should-fail', Body: Buffer.from('x') })),
    (err: Error & { $metadata?: { httpStatusCode?: number }; Code?: string; name: string }) => {
      assert.equal(err.$metadata?.httpStatusCode, 503, `a write without quorum is 503, got ${err.name}`);
      assert.match(err.message, /quorum|drives/i);
      return true;
    },
  );

  // 4. The drives come back: ready again, every object intact.
  for (const { d, aside } of away) { rmSync(d, { recursive: true, force: true, maxRetries: 5 }); renameSync(aside, d); }
  assert.ok(await eventually(ready, 30_000), 'ready again after the drives came back');
  for (const [key, digest] of objects) assert.equal(await readBack(key), digest, `${key} intact after recovery`);
});
