import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { offloadedHashes, stopHashWorker } from './hash-offload.js';
import { BITROT_HASH_SIZE, BitrotMismatchError, loadBitrotHasher } from './hasher.js';
import { BitrotReader, BitrotWriter, framedSize, type BitrotLayout } from './streaming.js';

const SHARD = 64 * 1024;

/** A shard file in memory: appends, and reads that are counted (in shared memory when `shared`). */
class MemFile {
  bytes = Buffer.alloc(0);
  reads: { offset: number; length: number }[] = [];
  shared = false;

  write(buffers: readonly Uint8Array[]): Promise<void> {
    this.bytes = Buffer.concat([this.bytes, ...buffers]);
    return Promise.resolve();
  }

  read(offset: number, length: number): Promise<Buffer> {
    this.reads.push({ offset, length });
    if (offset + length > this.bytes.length) return Promise.reject(new Error('short read'));
    if (!this.shared) return Promise.resolve(Buffer.from(this.bytes.subarray(offset, offset + length)));
    const mem = Buffer.from(new SharedArrayBuffer(length));
    this.bytes.copy(mem, 0, offset, offset + length);
    return Promise.resolve(mem);
  }
}

/** Chunks of a part of `size` shard bytes: full SHARD chunks and a shorter last one. */
function chunksOf(size: number): Buffer[] {
  const all = randomBytes(size);
  const out: Buffer[] = [];
  for (let at = 0; at < size; at += SHARD) out.push(all.subarray(at, Math.min(size, at + SHARD)));
  return out;
}

async function written(layout: BitrotLayout, chunks: Buffer[]): Promise<MemFile> {
  const h = await loadBitrotHasher();
  const file = new MemFile();
  const w = new BitrotWriter(file, h, layout);
  for (const c of chunks) await w.writeChunk(c);
  await w.finish();
  return file;
}

function reader(file: MemFile, chunks: Buffer[], layout: BitrotLayout, offload = false): Promise<BitrotReader> {
  const dataSize = chunks.reduce((n, c) => n + c.length, 0);
  const trailing = layout === 'trailing' ? { trailing: { dataSize, chunks: chunks.length } } : {};
  return loadBitrotHasher().then((h) => new BitrotReader(file, h, SHARD, 'd1 obj part 1', { offload, ...trailing }));
}

test('both layouts hold the same chunks in files of the same size; trailing puts the chunks back to back and the hashes after them', async () => {
  const h = await loadBitrotHasher();
  const chunks = chunksOf(5 * SHARD + 1000);
  const inter = await written('interleaved', chunks);
  const trail = await written('trailing', chunks);
  const size = framedSize(5 * SHARD + 1000, SHARD);
  assert.equal(inter.bytes.length, size);
  assert.equal(trail.bytes.length, size);
  assert.deepEqual(trail.bytes.subarray(0, 5 * SHARD + 1000), Buffer.concat(chunks));
  assert.deepEqual(trail.bytes.subarray(5 * SHARD + 1000), Buffer.concat(chunks.map((c) => h.hash(c))));
  assert.deepEqual(inter.bytes.subarray(0, BITROT_HASH_SIZE), h.hash(chunks[0]!));
  for (const layout of ['interleaved', 'trailing'] as const) {
    const file = layout === 'trailing' ? trail : inter;
    const r = await reader(file, chunks, layout);
    for (const i of [3, 0, 5, 1]) assert.deepEqual(await r.readChunk(i, chunks[i]!.length), chunks[i], `${layout} chunk ${i}`);
  }
  // An empty part: no chunk, no hash.
  assert.equal((await written('trailing', [])).bytes.length, 0);
});

test('a trailing-layout reader fetches the hash table once for a run of chunks, and reads a one-chunk file in one read', async () => {
  const chunks = chunksOf(8 * SHARD);
  const file = await written('trailing', chunks);
  const r = await reader(file, chunks, 'trailing');
  for (let i = 0; i < 8; i++) assert.deepEqual(await r.readChunk(i, SHARD), chunks[i]);
  const tables = file.reads.filter((x) => x.offset >= 8 * SHARD);
  assert.deepEqual(tables, [{ offset: 8 * SHARD, length: 8 * BITROT_HASH_SIZE }], 'one read of the eight hashes');
  assert.equal(file.reads.length, 9);

  // The last chunk first: its bytes and the whole table in one read, which then serves the others.
  const last = await reader(file, chunks, 'trailing');
  file.reads = [];
  assert.deepEqual(await last.readChunk(7, SHARD), chunks[7]);
  assert.deepEqual(await last.readChunk(2, SHARD), chunks[2]);
  assert.deepEqual(file.reads, [{ offset: 7 * SHARD, length: SHARD + 8 * BITROT_HASH_SIZE }, { offset: 2 * SHARD, length: SHARD }]);

  const one = chunksOf(1000);
  const small = await written('trailing', one);
  const r1 = await reader(small, one, 'trailing');
  assert.deepEqual(await r1.readChunk(0, 1000), one[0]);
  assert.deepEqual(small.reads, [{ offset: 0, length: 1000 + BITROT_HASH_SIZE }]);
});

test('a flipped byte in a trailing-layout chunk or in its stored hash is bitrot; a file cut short fails its chunks', async (t) => {
  t.after(stopHashWorker);
  const chunks = chunksOf(3 * SHARD + 8);
  for (const offload of [false, true]) {
    const file = await written('trailing', chunks);
    file.shared = offload;
    const before = offloadedHashes();
    for (const pos of [0, SHARD + 77, 3 * SHARD + 7, 3 * SHARD + 8, 3 * SHARD + 8 + BITROT_HASH_SIZE + 31, file.bytes.length - 1]) {
      file.bytes[pos] = file.bytes[pos]! ^ 0x10;
      const i = pos < 3 * SHARD + 8 ? Math.floor(pos / SHARD) : Math.floor((pos - 3 * SHARD - 8) / BITROT_HASH_SIZE);
      const r = await reader(file, chunks, 'trailing', offload);
      await assert.rejects(r.readChunk(i, chunks[i]!.length), (err: Error) =>
        err instanceof BitrotMismatchError && err.message.includes(`d1 obj part 1 chunk ${i}`), `byte ${pos}`);
      file.bytes[pos] = file.bytes[pos]! ^ 0x10;
      assert.deepEqual(await (await reader(file, chunks, 'trailing', offload)).readChunk(i, chunks[i]!.length), chunks[i]);
    }
    // Chunks of 64 KiB in shared memory go to the hash worker.
    if (offload) assert.ok(offloadedHashes() > before);
  }
  const file = await written('trailing', chunks);
  file.bytes = file.bytes.subarray(0, file.bytes.length - 1);
  const r = await reader(file, chunks, 'trailing');
  await assert.rejects(r.readChunk(0, SHARD), /short read/);
  await assert.rejects(r.readChunk(1, SHARD), /short read/);
  await assert.rejects(r.readChunk(4, 8), RangeError);
});
