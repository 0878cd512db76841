import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BufferPool, readBuffers } from './buffer-pool.js';

const KiB = 1024;
const FREE = 32 * 1024 * KiB;

test('a recycled buffer is lent again for a read of the same class; the short last chunk of an object shares it', () => {
  const pool = new BufferPool();
  const a = pool.take(512 * KiB + 32);
  assert.equal(a.length, 512 * KiB + 32);
  pool.recycle(a.subarray(32)); // the holder hands back a view (the verified chunk after its hash)
  assert.equal(pool.freeBytes, 576 * KiB);
  const b = pool.take(520 * KiB + 32); // a shorter last chunk, same 64 KiB class
  assert.ok(b.buffer === a.buffer);
  assert.equal(b.length, 520 * KiB + 32);
  assert.equal(pool.freeBytes, 0);
  const c = pool.take(512 * KiB + 32);
  assert.ok(c.buffer !== a.buffer, 'a lent buffer is never lent twice');
});

test('handing a buffer back twice frees it once: two later reads never share it', () => {
  const pool = new BufferPool();
  const a = pool.take(256 * KiB);
  pool.recycle(a);
  pool.recycle(a);
  assert.equal(pool.freeBytes, 256 * KiB);
  const b = pool.take(256 * KiB);
  const c = pool.take(256 * KiB);
  assert.ok(b.buffer === a.buffer);
  assert.ok(c.buffer !== b.buffer);
});

test('small and huge reads, and foreign buffers, stay outside the pool', () => {
  const pool = new BufferPool();
  const small = pool.take(4 * KiB);
  const huge = pool.take(8 * 1024 * KiB);
  pool.recycle(small);
  pool.recycle(huge);
  pool.recycle(Buffer.alloc(512 * KiB));
  pool.recycle(new Uint8Array(new SharedArrayBuffer(128 * KiB)));
  assert.equal(pool.freeBytes, 0);
});

test('beyond its budget the pool forgets buffers instead of keeping them', () => {
  const pool = new BufferPool(1024 * KiB);
  const lent = [1, 2, 3].map(() => pool.take(512 * KiB));
  for (const b of lent) pool.recycle(b);
  assert.equal(pool.freeBytes, 1024 * KiB);
  const again = [1, 2, 3].map(() => pool.take(512 * KiB));
  const reused = again.filter((b) => lent.some((l) => l.buffer === b.buffer));
  assert.equal(reused.length, 2);
  assert.equal(pool.freeBytes, 0);
});

test('shard reads are lent in shared memory (a worker checks their bitrot hash in place); other pools in ordinary memory', () => {
  const read = readBuffers.take(512 * KiB);
  assert.ok(read.buffer instanceof SharedArrayBuffer);
  readBuffers.recycle(read);
  assert.ok(readBuffers.take(512 * KiB).buffer === read.buffer, 'recycled like any other');
  assert.ok(new BufferPool().take(512 * KiB).buffer instanceof ArrayBuffer);
  assert.ok(new BufferPool(FREE, { shared: true }).take(512 * KiB).buffer instanceof SharedArrayBuffer);
});

test('a buffer given away leaves the pool; taken back after its transfer, it is lent again', () => {
  const pool = new BufferPool();
  const a = pool.take(1024 * KiB);
  assert.equal(pool.giveAway(pool.take(4 * KiB)), null, 'not pooled: never given away');
  assert.equal(pool.giveAway(a.subarray(64)), null, 'a view past the start: not the whole buffer');
  const ab = pool.giveAway(a);
  assert.ok(ab === a.buffer);
  assert.equal(pool.giveAway(a), null, 'given away once');
  pool.recycle(a);
  assert.equal(pool.freeBytes, 0, 'no longer the pool\'s to recycle');
  const back = structuredClone(ab, { transfer: [ab] }); // what a worker's answer hands back: a new object
  assert.equal(ab.byteLength, 0);
  pool.takeBack(back);
  assert.equal(pool.freeBytes, 1024 * KiB);
  assert.ok(pool.take(1024 * KiB).buffer === back);
  pool.takeBack(new ArrayBuffer(1000)); // not a class of the pool: ignored
  assert.equal(pool.freeBytes, 0);
});
