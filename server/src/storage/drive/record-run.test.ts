import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, open, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunReader, compareIds, writeRun, type RunEntry } from './record-run.js';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-record-store-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function rng(seed: number): (n: number) => number {
  let x = seed;
  return (n) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % n;
  };
}

/** ~5,000 sorted entries of random sizes: tombstones, one 1.1 MB value, ids with non-ASCII characters. */
function sample(): RunEntry[] {
  const next = rng(42);
  const ids = new Set<string>();
  const chars = ['a', 'b', 'z', '/', '\u00e9', '\uffff', '\u{1F600}', '0'];
  while (ids.size < 5000) {
    let key = `k${next(1000)}`;
    for (let i = next(6); i > 0; i--) key += chars[next(chars.length)];
    ids.add(`${next(2) === 0 ? 'vol' : 'bkt'}\0${key}`);
  }
  const sorted = [...ids].sort(compareIds);
  return sorted.map((id, i) => {
    if (i === 2500) return { id, value: Buffer.alloc(1_100_000, 7) };
    if (next(10) === 0) return { id, value: null };
    const value = Buffer.alloc(next(3000));
    for (let b = 0; b < value.length; b += 97) value[b] = next(256);
    value.write(id, 0, 'utf8');
    return { id, value };
  });
}

async function drain(c: { next(): Promise<RunEntry | undefined> }): Promise<RunEntry[]> {
  const out: RunEntry[] = [];
  for (let e = await c.next(); e !== undefined; e = await c.next()) out.push(e);
  return out;
}

test('compareIds orders like UTF-8 bytes, surrogate pairs included', () => {
  const ids = ['a', 'a\u00e9', 'a\uffff', 'a\u{1F600}', 'a\ue000', 'a\ud7ff', 'ab', 'a\0b', '', 'a\u{10FFFF}', 'a\u{10000}'];
  const byBytes = [...ids].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
  assert.deepEqual([...ids].sort(compareIds), byBytes);
  assert.notDeepEqual([...ids].sort(), byBytes, 'JS string order differs (the case the helper exists for)');
});

test('a run reads back what was written: get, bloom, cursor, seek', async (t) => {
  const dir = await tempDir(t);
  const entries = sample();
  const path = join(dir, 'a.run');
  const info = await writeRun(path, entries);
  assert.equal(info.count, entries.length);
  assert.equal(info.size, (await stat(path)).size);
  const run = await RunReader.open(path);
  t.after(() => run.close());
  assert.equal(run.count, entries.length);
  assert.ok(run.blockCount > 100, 'entries spread over many blocks');
  for (const e of entries) {
    assert.ok(run.mayContain(e.id), `bloom has no false negative (${JSON.stringify(e.id)})`);
    const got = await run.get(e.id);
    assert.ok(got !== undefined, `present: ${JSON.stringify(e.id)}`);
    assert.deepEqual(got.value, e.value);
  }
  let maybe = 0;
  for (let i = 0; i < 10_000; i++) {
    const id = `vol\0absent-${i}`;
    if (run.mayContain(id)) maybe++;
    assert.equal(await run.get(id), undefined);
  }
  assert.ok(maybe < 300, `bloom false positives: ${maybe} of 10,000`);
  assert.equal(await run.get(''), undefined, 'below the first id');
  assert.equal(await run.get('\u{10FFFF}'), undefined, 'above the last id');

  assert.deepEqual(await drain(run.cursor('')), entries, 'a full scan');
  const mid = entries[2000]!.id;
  const fromMid = await drain(run.cursor(mid));
  assert.deepEqual(fromMid, entries.slice(2000));
  // A seek forward across many blocks, then to an id between two entries.
  const c = run.cursor(entries[10]!.id);
  assert.equal((await c.next())?.id, entries[10]!.id);
  c.seek(entries[4000]!.id);
  assert.equal((await c.next())?.id, entries[4000]!.id);
  assert.equal((await c.next())?.id, entries[4001]!.id);
  c.seek(`${entries[4500]!.id}\0`);
  assert.equal((await c.next())?.id, entries[4501]!.id);
  c.seek(entries[100]!.id);
  assert.equal((await c.next())?.id, entries[4502]!.id, 'a seek never goes back');
  // Values stay valid after the cursor read on (later reads use fresh buffers).
  const all = run.cursor('');
  const kept = [];
  for (let e = await all.next(); e !== undefined; e = await all.next()) kept.push(e);
  assert.deepEqual(kept, entries);
  assert.deepEqual(await drain(run.cursor('\u{10FFFF}')), []);
});

test('an async source and an empty run', async (t) => {
  const dir = await tempDir(t);
  async function* gen(): AsyncGenerator<RunEntry> {
    for (let i = 0; i < 3000; i++) yield { id: `v\0${String(i).padStart(5, '0')}`, value: Buffer.from(`value ${i}`) };
  }
  await writeRun(join(dir, 'b.run'), gen());
  const run = await RunReader.open(join(dir, 'b.run'));
  t.after(() => run.close());
  assert.equal(run.count, 3000);
  assert.deepEqual((await run.get('v\x0002999'))?.value, Buffer.from('value 2999'));
  await writeRun(join(dir, 'empty.run'), []);
  const empty = await RunReader.open(join(dir, 'empty.run'));
  t.after(() => empty.close());
  assert.equal(empty.count, 0);
  assert.equal(empty.mayContain('v\0x'), false);
  assert.equal(await empty.get('v\0x'), undefined);
  assert.equal(await empty.cursor('').next(), undefined);
});

test('entries out of order or repeated are refused', async (t) => {
  const dir = await tempDir(t);
  const v = Buffer.from('x');
  await assert.rejects(writeRun(join(dir, 'c.run'), [{ id: 'b', value: v }, { id: 'a', value: v }]), /out of order/);
  await assert.rejects(writeRun(join(dir, 'd.run'), [{ id: 'a', value: v }, { id: 'a', value: null }]), /out of order/);
  // JS string order is not byte order: U+1F600 sorts below U+FFFF in JS, above it in UTF-8.
  await assert.rejects(writeRun(join(dir, 'e.run'), [{ id: '\u{1F600}', value: v }, { id: '\uffff', value: v }]), /out of order/);
  await writeRun(join(dir, 'f.run'), [{ id: '\uffff', value: v }, { id: '\u{1F600}', value: v }]);
});

test('a damaged block throws ESVCRUN, never answers "absent"; a truncated file fails to open', async (t) => {
  const dir = await tempDir(t);
  const entries = sample();
  const path = join(dir, 'f.run');
  await writeRun(path, entries);
  const victim = entries[1234]!;
  const before = await readFile(path);
  // Flip a byte inside the victim's value (its id appears once in the file's data: the value starts with it).
  const at = before.indexOf(Buffer.from(victim.value!.subarray(0, 40)), 0);
  assert.ok(at > 0);
  const fh = await open(path, 'r+');
  await fh.write(Buffer.from([before[at + 20]! ^ 0xff]), 0, 1, at + 20);
  await fh.close();
  const run = await RunReader.open(path);
  t.after(() => run.close());
  await assert.rejects(run.get(victim.id), (err: NodeJS.ErrnoException) => err.code === 'ESVCRUN' && /offset \d+/.test(err.message));
  await assert.rejects(drain(run.cursor('')), { code: 'ESVCRUN' });
  assert.deepEqual((await run.get(entries[0]!.id))?.value, entries[0]!.value, 'other blocks still read');

  const cut = join(dir, 'g.run');
  await writeFile(cut, before);
  await truncate(cut, before.length - 10);
  await assert.rejects(RunReader.open(cut), { code: 'ESVCRUN' });
  const footerHit = join(dir, 'h.run');
  const damaged = Buffer.from(before);
  damaged[damaged.length - 100]! ^= 1;
  await writeFile(footerHit, damaged);
  await assert.rejects(RunReader.open(footerHit), { code: 'ESVCRUN' });
  await writeFile(join(dir, 'tiny.run'), 'x');
  await assert.rejects(RunReader.open(join(dir, 'tiny.run')), { code: 'ESVCRUN' });
});
