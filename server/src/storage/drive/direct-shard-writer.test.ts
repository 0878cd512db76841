import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openShardWriter, setStageMemoryForTests, writtenInPlace } from './direct-shard-writer.js';
import { pageAlignedArrayBuffer } from './direct-align.js';

const map = async (err: unknown): Promise<Error> => (err instanceof Error ? err : new Error(String(err)));

function pattern(n: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed * 7 + (i >> 9)) & 0xff;
  return b;
}

test('the file holds exactly the appended bytes, whatever the write sizes (hash ‖ chunk framing, partial stages)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-direct-'));
  try {
    // 0 bytes, less than one 4 KiB block, files under one stage written partly with O_DIRECT at close (a 1 MiB
    // object's shard: hash ‖ 512 KiB; just over 64 KiB), one full 1 MiB stage, and several stages with an unaligned tail.
    for (const [i, sizes] of [
      [], [1], [100, 4000], [32, 524_288], [70_001], [1 << 20], [32, 524_288, 32, 524_288, 32, 524_288, 32, 7], [3, 1_500_000, 2_000_001],
    ].entries()) {
      const path = join(dir, `part.${i}`);
      const w = await openShardWriter(path, dir, map);
      const parts = sizes.map((n, j) => pattern(n, i * 10 + j));
      for (let j = 0; j < parts.length; j += 2) await w.write(parts.slice(j, j + 2));
      await w.close();
      assert.deepEqual(await readFile(path), Buffer.concat(parts), `sizes ${sizes.join(',')}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  }
});

test('writers of one drive run side by side, reuse pooled stages, and abort leaves the file to the caller', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-direct-'));
  try {
    const body = (s: number): Buffer[] => Array.from({ length: 6 }, (_, j) => pattern(524_320 + j, s + j));
    for (let round = 0; round < 2; round++) {
      const ws = await Promise.all([0, 1, 2, 3].map((s) => openShardWriter(join(dir, `s${s}`), dir, map)));
      await Promise.all(ws.map(async (w, s) => { for (const b of body(s)) await w.write([b]); }));
      await Promise.all(ws.map((w) => w.close()));
      for (let s = 0; s < 4; s++) assert.deepEqual(await readFile(join(dir, `s${s}`)), Buffer.concat(body(s)));
    }
    const w = await openShardWriter(join(dir, 'aborted'), dir, map);
    await w.write([pattern(3 << 20, 9)]);
    await w.abort();
    await w.abort();
    await assert.rejects(w.write([Buffer.alloc(1)]));
    assert.ok((await stat(join(dir, 'aborted'))).isFile());
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  }
});

test('stages in memory the kernel refuses at offset 0 are probed, and the file still holds exactly the appended bytes', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-direct-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  // 8 bytes past a page boundary: aligned to no logical block, so the first direct write fails with EINVAL.
  setStageMemoryForTests((bytes) => Buffer.from(pageAlignedArrayBuffer(bytes + 4096), 8, bytes));
  t.after(() => setStageMemoryForTests(undefined));
  const parts = [pattern(32, 1), pattern(1_500_000, 2), pattern(700_001, 3)];
  const w = await openShardWriter(join(dir, 'part.1'), dir, map);
  await w.write(parts);
  await w.close();
  assert.deepEqual(await readFile(join(dir, 'part.1')), Buffer.concat(parts));
});

test('whole pages of page-aligned memory at an aligned offset are written in place; anything else is staged, and the bytes are exact', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-direct-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  const aligned = (n: number, seed: number): Buffer => {
    const b = Buffer.from(pageAlignedArrayBuffer(n));
    pattern(n, seed).copy(b);
    return b;
  };
  // The trailing bitrot layout's appends: chunks of 512 KiB from a page-aligned block, then the hashes.
  const chunks = [aligned(1 << 20, 1), aligned(1 << 20, 2)];
  const trailing = [chunks[0]!.subarray(0, 524_288), chunks[0]!.subarray(524_288), chunks[1]!.subarray(0, 524_288), pattern(96, 3)];
  const before = writtenInPlace();
  const w = await openShardWriter(join(dir, 'trailing'), dir, map);
  for (const b of trailing) await w.write([b]);
  await w.close();
  assert.equal(writtenInPlace() - before, 3, 'the three chunks went without a stage');
  assert.deepEqual(await readFile(join(dir, 'trailing')), Buffer.concat(trailing));

  // Staged instead: memory off a page by 8 bytes (the kernel refuses it; twice, filling one stage, then again at a
  // stage boundary), an append while a stage is partly filled, a length that is not whole pages, two buffers at once.
  const offset = Buffer.from(pageAlignedArrayBuffer(524_288 + 8)).subarray(8);
  pattern(524_288, 4).copy(offset);
  const mixed = [offset, offset, offset, pattern(100, 5), aligned(524_288, 6), aligned(524_288 + 4096, 7).subarray(0, 520_000), aligned(65_536, 8)];
  const start = writtenInPlace();
  const m = await openShardWriter(join(dir, 'mixed'), dir, map);
  for (let i = 0; i < 5; i++) await m.write([mixed[i]!]);
  await m.write([mixed[5]!, mixed[6]!]);
  await m.close();
  assert.equal(writtenInPlace(), start, 'every append of the mixed file was staged');
  assert.deepEqual(await readFile(join(dir, 'mixed')), Buffer.concat(mixed));
});
