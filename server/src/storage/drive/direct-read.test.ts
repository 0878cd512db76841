import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { constants, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ALIGN, isEinval, pageAlignedArrayBuffer } from './direct-align.js';
import { readBuffers } from './buffer-pool.js';
import { DIRECT_MIN, openDirect, readDirect } from './direct-read.js';
import { LocalShardReader } from './local-shard-io.js';
import { FileCorruptError } from './drive-errors.js';

// Under the project's tree (on the root file system, which takes O_DIRECT), not in a tmpfs.
async function scratch(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(process.cwd(), '.direct-read-test-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

test('direct reads return exactly the bytes asked for, at any offset and length, as views of pooled buffers', async (t) => {
  const dir = await scratch(t);
  const path = join(dir, 'part.1');
  const data = randomBytes(3 * 1024 * 1024 + 123);
  // Written buffered and not synced: a direct read must still see it (the kernel writes the range back first).
  await writeFile(path, data);
  const fh = await openDirect(path, dir);
  assert.notEqual(fh, null, 'this file system takes O_DIRECT');
  t.after(() => fh!.close());
  const ranges: [number, number][] = [[0, DIRECT_MIN], [1, DIRECT_MIN + 1], [4095, 600_000], [data.length - DIRECT_MIN, DIRECT_MIN]];
  for (let i = 0; i < 40; i++) {
    const length = DIRECT_MIN + Math.floor(Math.random() * 1024 * 1024);
    ranges.push([Math.floor(Math.random() * (data.length - length)), length]);
  }
  for (const [offset, length] of ranges) {
    const got = await readDirect(fh!, dir, offset, length);
    assert.ok(Buffer.isBuffer(got), `range ${offset}+${length} read`);
    assert.equal(got.length, length);
    assert.ok(got.equals(data.subarray(offset, offset + length)), `bytes of ${offset}+${length}`);
    readBuffers.recycle(got);
  }
  assert.equal(await readDirect(fh!, dir, data.length - 1000, DIRECT_MIN), 'short', 'past the end of the file');
});

test('a shard reader reads large ranges directly and small ones buffered, with the same bytes; a short file is corrupt', async (t) => {
  const dir = await scratch(t);
  const path = join(dir, 'part.1');
  const data = randomBytes(2 * 1024 * 1024);
  await writeFile(path, data);
  const reader = new LocalShardReader(await open(path, 'r'), path, dir, 'k');
  t.after(() => reader.close());
  for (const [offset, length, pooled] of [[10, 100, false], [5000, DIRECT_MIN * 3, true], [0, data.length, false], [777, 1, true]] as const) {
    assert.ok((await reader.read(offset, length, pooled)).equals(data.subarray(offset, offset + length)), `${offset}+${length}`);
  }
  await assert.rejects(reader.read(data.length - 10, DIRECT_MIN), FileCorruptError);
  await assert.rejects(reader.read(data.length - 10, 100), FileCorruptError);
});

test('page-aligned buffers are accepted for O_DIRECT from their first byte, ordinary ones of the same size are not', async (t) => {
  const dir = await scratch(t);
  const fh = await open(join(dir, 'probe'), constants.O_WRONLY | constants.O_CREAT | constants.O_DIRECT);
  t.after(() => fh.close());
  const acceptsAtZero = (b: Buffer): boolean => {
    try {
      writeSync(fh.fd, b, 0, ALIGN, 0);
      return true;
    } catch (err) {
      if (!isEinval(err)) throw err;
      return false;
    }
  };
  // The stages of direct-shard-writer.ts and the pooled read buffers: all of them, whatever was allocated before.
  for (let i = 0; i < 20; i++) assert.ok(acceptsAtZero(Buffer.from(pageAlignedArrayBuffer((1 << 20) + ALIGN))), `buffer ${i}`);
  // malloc puts a header before its block: this is why the probe and pageAlignedArrayBuffer exist (a machine whose
  // malloc aligned large blocks would make this check moot, not wrong).
  const ordinary = Array.from({ length: 20 }, () => Buffer.allocUnsafeSlow((1 << 20) + ALIGN));
  assert.ok(ordinary.some((b) => !acceptsAtZero(b)), 'some ordinary buffer is misaligned');
});
