/**
 * The ceiling server (server/bench/ceiling-server.ts) does the work it claims, so its figures bound svc's: a small
 * PUT answers with the body's MD5 and reads back byte for byte; a large PUT (1 MiB or more) answers with the MD5 of
 * the whole body (hashed by svc's MD5 worker) and its GET has the object's size. Options it cannot measure are
 * refused with one line on stderr and exit code 2.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { ceiling, type Target } from '../../bench/targets.js';
import { bodyBytes, s3Client } from '../helpers/s3-client.js';

const md5 = (b: Buffer): string => `"${createHash('md5').update(b).digest('hex')}"`;

let target: Target;
let s3: S3Client;

before(async () => {
  target = await ceiling();
  s3 = s3Client(target.urls[0]!, target.accessKey, target.secretKey);
  await s3.send(new CreateBucketCommand({ Bucket: 'ceil' }));
});

after(async () => {
  s3?.destroy();
  await target?.stop();
});

test('a small PUT answers with its MD5 and reads back byte for byte', async () => {
  const body = randomBytes(4096);
  assert.equal((await s3.send(new PutObjectCommand({ Bucket: 'ceil', Key: 'small', Body: body }))).ETag, md5(body));
  assert.ok((await bodyBytes((await s3.send(new GetObjectCommand({ Bucket: 'ceil', Key: 'small' }))).Body)).equals(body));
});

test('a large PUT answers with the MD5 of the whole body; its GET has the object\'s size', async () => {
  // 9 MiB: past LANE_MIN_BYTES, the large path of md5-offload.ts (alone on its worker: node:crypto there); 1 MiB + 3: small.
  for (const size of [9 * 1024 * 1024 + 17, 1024 * 1024 + 3]) {
    const body = randomBytes(size);
    assert.equal((await s3.send(new PutObjectCommand({ Bucket: 'ceil', Key: `large-${size}`, Body: body }))).ETag, md5(body));
    const got = await bodyBytes((await s3.send(new GetObjectCommand({ Bucket: 'ceil', Key: `large-${size}` }))).Body);
    assert.equal(got.length, size);
  }
});

test('CEILING_LARGE other than md5, crypto or none: exit code 2 and one line, before a file is made', () => {
  const script = fileURLToPath(new URL('../../bench/ceiling-server.ts', import.meta.url));
  const dir = join(mkdtempSync(join(tmpdir(), 'ceil-args-')), 'drives');
  try {
    const r = spawnSync(process.execPath, ['--import', 'tsx', script, dir, 'K', 'S'], {
      encoding: 'utf8', timeout: 60_000, env: { ...process.env, CEILING_LARGE: 'full' },
    });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, 'ceiling-server: CEILING_LARGE must be md5, crypto or none, not full\n');
    assert.equal(existsSync(dir), false);
  } finally {
    rmSync(dirname(dir), { recursive: true, force: true, maxRetries: 5 });
  }
});

test('bench --ceiling with a group the ceiling server has no answer for: exit code 2 and one line', () => {
  const script = fileURLToPath(new URL('../../bench/bench.ts', import.meta.url));
  for (const only of [['--only', 'list'], ['--only', 'small,multipart'], []]) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', script, '--ceiling', ...only], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, 'bench: --ceiling measures objects only (no listing or multipart); add --only small,1MiB,64MiB or a part of it\n');
  }
});
