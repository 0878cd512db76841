import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { OFFLOAD_MIN_BYTES, offloadedHashes, stopHashWorker, verifyFramedChunkOffloaded } from './hash-offload.js';
import { BITROT_HASH_SIZE, BitrotMismatchError, loadBitrotHasher } from './hasher.js';

/** `data` framed (hash ‖ data) at `at` in a new SharedArrayBuffer, or in ordinary memory. */
function framedIn(hash: Buffer, data: Buffer, shared: boolean, at = 4096): Buffer {
  const len = BITROT_HASH_SIZE + data.length;
  const mem = shared ? Buffer.from(new SharedArrayBuffer(at + len), at, len) : Buffer.alloc(len);
  hash.copy(mem, 0);
  data.copy(mem, BITROT_HASH_SIZE);
  return mem;
}

test('a large chunk in shared memory is checked by the worker, in place; every flipped byte is found', async (t) => {
  t.after(stopHashWorker);
  const h = await loadBitrotHasher();
  const data = randomBytes(512 * 1024 + 5);
  const framed = framedIn(h.hash(data), data, true);
  const before = offloadedHashes();
  const out = await verifyFramedChunkOffloaded(h, framed, 'd1 obj chunk 0');
  assert.ok(out.equals(data));
  assert.ok(out.buffer === framed.buffer && out.byteOffset === framed.byteOffset + BITROT_HASH_SIZE, 'a view, not a copy');
  assert.equal(offloadedHashes(), before + 1);
  for (const pos of [0, 31, 32, 32 + 300_000, framed.length - 1]) {
    framed[pos] = framed[pos]! ^ 0x01;
    await assert.rejects(verifyFramedChunkOffloaded(h, framed, 'd1 obj chunk 0'), (err: Error) =>
      err instanceof BitrotMismatchError && /bitrot detected in d1 obj chunk 0/.test(err.message));
    framed[pos] = framed[pos]! ^ 0x01;
  }
  assert.equal(offloadedHashes(), before + 6);
  // Many at once (a GET's chunks of four shards in flight): each answer goes to its own chunk.
  const many = Array.from({ length: 16 }, (_, i) => randomBytes(OFFLOAD_MIN_BYTES + i * 1000));
  const framedMany = many.map((d) => framedIn(h.hash(d), d, true, 0));
  framedMany[7]![40] = framedMany[7]![40]! ^ 0x80;
  const results = await Promise.allSettled(framedMany.map((f, i) => verifyFramedChunkOffloaded(h, f, `chunk ${i}`)));
  assert.deepEqual(results.map((r) => r.status), many.map((_, i) => (i === 7 ? 'rejected' : 'fulfilled')));
});

test('small chunks and chunks in ordinary memory are checked on the calling thread, with the same answers', async () => {
  const h = await loadBitrotHasher();
  const before = offloadedHashes();
  for (const [size, shared] of [[OFFLOAD_MIN_BYTES - 1, true], [1024 * 1024, false]] as const) {
    const data = randomBytes(size);
    const framed = framedIn(h.hash(data), data, shared);
    assert.ok((await verifyFramedChunkOffloaded(h, framed, 'x')).equals(data));
    framed[BITROT_HASH_SIZE + 1] = framed[BITROT_HASH_SIZE + 1]! ^ 0x01;
    await assert.rejects(verifyFramedChunkOffloaded(h, framed, 'x'), BitrotMismatchError);
  }
  await assert.rejects(verifyFramedChunkOffloaded(h, Buffer.alloc(10), 'short'), BitrotMismatchError);
  assert.equal(offloadedHashes(), before, 'none went to the worker');
});

test('a stopped worker is replaced by a new one on the next large chunk', async (t) => {
  t.after(stopHashWorker);
  const h = await loadBitrotHasher();
  const data = randomBytes(256 * 1024);
  const framed = framedIn(h.hash(data), data, true);
  await verifyFramedChunkOffloaded(h, framed, 'x');
  stopHashWorker();
  const before = offloadedHashes();
  assert.ok((await verifyFramedChunkOffloaded(h, framed, 'x')).equals(data));
  assert.equal(offloadedHashes(), before + 1);
});
