/**
 * The bench's lean client (server/bench/lean-client.ts) against a real server: its SigV4 signatures are
 * accepted, bodies round-trip, listings page with continuation tokens, and errors reject with the S3 code.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { LeanS3 } from '../../bench/lean-client.js';
import { startSvc, type SvcProcess } from '../helpers/svc-process.js';

let svc: SvcProcess;
let s3: LeanS3;

before(async () => {
  svc = await startSvc({ drives: 4 });
  s3 = new LeanS3(svc.url, svc.accessKey, svc.secretKey);
});

after(async () => {
  s3.destroy();
  await svc.stop();
  svc.cleanup();
});

test('PUT (buffer and stream), GET and a paged listing through the lean client', async () => {
  await s3.send('PUT', 'lean-bkt', '');
  await s3.put('lean-bkt', 'a/one', Buffer.alloc(4096, 1));
  await s3.put('lean-bkt', 'a/two wörds+&=', Readable.from([Buffer.alloc(300_000, 2)]), 300_000);
  assert.equal(await s3.get('lean-bkt', 'a/one'), 4096);
  assert.equal(await s3.get('lean-bkt', 'a/two wörds+&='), 300_000);
  for (let i = 0; i < 1005; i++) await s3.put('lean-bkt', `many/${String(i).padStart(4, '0')}`, Buffer.alloc(0));
  const first = await s3.listPage('lean-bkt', 'many/', undefined);
  assert.equal(first.keys, 1000);
  assert.ok(first.next !== undefined);
  const second = await s3.listPage('lean-bkt', 'many/', first.next);
  assert.deepEqual(second, { keys: 5, next: undefined });
});

test('a wrong secret is refused with the S3 error in the rejection', async () => {
  const wrong = new LeanS3(svc.url, svc.accessKey, 'not-the-secret');
  try {
    await assert.rejects(wrong.get('lean-bkt', 'a/one'), /HTTP 403 .*SignatureDoesNotMatch/);
  } finally {
    wrong.destroy();
  }
});
