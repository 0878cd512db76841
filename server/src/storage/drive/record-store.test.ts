import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordStore, recordId } from './record-store.js';

type T = { after(fn: () => Promise<void>): void };

/** Stores a test opened: closed (their merges finished) before its directory goes. */
const opened = new Map<T, RecordStore[]>();

/** A store directory whose parent exists (as a drive's system area would). */
async function tempDir(t: T): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'svc-record-store-'));
  t.after(async () => {
    for (const s of opened.get(t) ?? []) await s.close();
    opened.delete(t);
    await rm(root, { recursive: true, force: true });
  });
  return join(root, 'records');
}

async function openStore(t: T, dir: string): Promise<RecordStore> {
  const store = await RecordStore.open(dir);
  opened.set(t, [...(opened.get(t) ?? []), store]);
  return store;
}

const b = (s: string): Buffer => Buffer.from(s);
const text = (v: Buffer | null): string | null => (v === null ? null : v.toString());

async function list(store: RecordStore, lower: string, upper: string, seeks: Record<string, string> = {}): Promise<string[]> {
  const c = store.cursor(lower, upper);
  const out: string[] = [];
  try {
    for (let e = await c.next(); e !== undefined; e = await c.next()) {
      out.push(`${e.id.replace('\0', '|')}=${e.value.toString()}`);
      const to = seeks[e.id];
      if (to !== undefined) c.seek(to);
    }
  } finally {
    await c.close();
  }
  return out;
}

test('put, del, peek, get; memtable over newer runs over older runs', async (t) => {
  const store = await openStore(t, await tempDir(t));
  const id = recordId('v', 'k');
  assert.equal(store.peek(id), undefined);
  assert.equal(await store.get(id), null);
  const src = new Uint8Array([1, 2, 3]);
  store.put(id, src);
  src[0] = 9;
  assert.deepEqual(store.peek(id), Buffer.from([1, 2, 3]), 'put copies the bytes');
  store.put(id, b('one'));
  store.put(recordId('v', 'gone'), b('x'));
  store.put(recordId('v', 'older'), b('old'));
  await store.flush();
  assert.equal(store.memtableSize, 0);
  assert.equal(store.peek(id), undefined);
  assert.equal(text(await store.get(id)), 'one');
  store.put(id, b('two'));
  store.del(recordId('v', 'gone'));
  await store.flush();
  assert.equal(text(await store.get(id)), 'two', 'the newer run wins');
  assert.equal(await store.get(recordId('v', 'gone')), null, 'a tombstone hides the older record');
  assert.equal(text(await store.get(recordId('v', 'older'))), 'old', 'the older run still answers');
  store.put(id, b('three'));
  assert.equal(text(await store.get(id)), 'three', 'the memtable wins');
  store.del(id);
  assert.equal(store.peek(id), null);
  assert.equal(await store.get(id), null);
  assert.equal(store.mayHave(id), true);
  assert.equal(store.mayHave(recordId('v', 'older')), true);
  assert.equal(store.mayHave(recordId('v', 'never-written')), false);
});

test('a reopened store holds what was flushed, not what was not; leftovers are deleted', async (t) => {
  const dir = await tempDir(t);
  const store = await RecordStore.open(dir);
  for (let i = 0; i < 100; i++) store.put(recordId('v', `k${i}`), b(`v${i}`));
  await store.flush();
  store.del(recordId('v', 'k1'));
  store.put(recordId('v', 'k2'), b('changed'));
  await store.flush();
  store.put(recordId('v', 'unflushed'), b('lost'));
  await store.close();
  await writeFile(join(dir, 'run-000000000099.tmp'), 'partial');
  await writeFile(join(dir, 'run-000000000098.run'), 'unlisted');
  await writeFile(join(dir, 'MANIFEST.tmp'), '{');
  const again = await openStore(t, dir);
  const files = await readdir(dir);
  assert.ok(!files.includes('run-000000000099.tmp') && !files.includes('run-000000000098.run') && !files.includes('MANIFEST.tmp'), files.join());
  assert.equal(await again.get(recordId('v', 'unflushed')), null);
  assert.equal(await again.get(recordId('v', 'k1')), null);
  assert.equal(text(await again.get(recordId('v', 'k2'))), 'changed');
  assert.equal(text(await again.get(recordId('v', 'k99'))), 'v99');
  // A drive wiped under it: the store's parent is gone, and it is not made again.
  await rm(join(dir, '..'), { recursive: true, force: true });
  await assert.rejects(RecordStore.open(dir), { code: 'ENOENT' });
});

test('cursors merge memory and runs in UTF-8 byte order, within bounds, with seek', async (t) => {
  const store = await openStore(t, await tempDir(t));
  const put = (key: string, v: string): void => store.put(recordId('v', key), b(v));
  put('a/1', 'old'); put('a/2', 'x'); put('b', 'old'); put('c', 'c'); put('a\uffff', 'ffff');
  store.put(recordId('w', 'a/1'), b('other volume'));
  await store.flush();
  put('a/1', 'new'); store.del(recordId('v', 'a/2')); put('a\u{1F600}', 'emoji'); put('a/3/x', 'deep');
  await store.flush();
  put('a\u00e9', 'e-acute'); put('b', 'newest'); store.del(recordId('v', 'c')); put('a/3/y', 'deep2');
  assert.deepEqual(await list(store, recordId('v', ''), recordId('v', '\u{10FFFF}')), [
    'v|a/1=new', 'v|a/3/x=deep', 'v|a/3/y=deep2', 'v|a\u00e9=e-acute', 'v|a\uffff=ffff', 'v|a\u{1F600}=emoji', 'v|b=newest',
  ]);
  assert.deepEqual(await list(store, recordId('v', 'a/'), recordId('v', 'a0')), ['v|a/1=new', 'v|a/3/x=deep', 'v|a/3/y=deep2']);
  assert.deepEqual(await list(store, recordId('v', 'a/3/x'), recordId('v', 'b')).then((l) => l.length), 5, 'lower is inclusive, upper not');
  assert.deepEqual(await list(store, recordId('v', 'a/'), recordId('v', 'c'), { [recordId('v', 'a/3/x')]: recordId('v', 'a/30') }), [
    'v|a/1=new', 'v|a/3/x=deep', 'v|a\u00e9=e-acute', 'v|a\uffff=ffff', 'v|a\u{1F600}=emoji', 'v|b=newest',
  ], 'a seek skips the rest of a/3/');
  assert.deepEqual(await list(store, recordId('w', ''), recordId('w', '\uffff')), ['w|a/1=other volume']);
  assert.deepEqual(await list(store, recordId('v', 'b'), recordId('v', 'b')), []);
});

test('dropVolume hides runs and memory, durably; a re-created volume shows its later records', async (t) => {
  const dir = await tempDir(t);
  const store = await RecordStore.open(dir);
  store.put(recordId('v', 'flushed'), b('1'));
  store.put(recordId('keep', 'k'), b('kept'));
  await store.flush();
  store.put(recordId('v', 'in-memory'), b('2'));
  await store.dropVolume('v');
  assert.equal(await store.get(recordId('v', 'flushed')), null);
  assert.equal(await store.get(recordId('v', 'in-memory')), null);
  assert.equal(store.mayHave(recordId('v', 'flushed')), false);
  assert.deepEqual(await list(store, '', '\uffff'), ['keep|k=kept']);
  store.put(recordId('v', 'again'), b('3'));
  await store.flush();
  assert.equal(text(await store.get(recordId('v', 'again'))), '3');
  // Two more runs make four of one tier (pickMerge): the runs before and after the drop merge into one of the later
  // generation, and the dropped records must not come along.
  for (const k of ['k2', 'k3']) {
    store.put(recordId('keep', k), b(k));
    await store.flush();
  }
  await store.idle();
  assert.equal(store.runCount, 1);
  assert.equal(await store.get(recordId('v', 'flushed')), null);
  await store.close();
  const again = await openStore(t, dir);
  assert.equal(await again.get(recordId('v', 'flushed')), null, 'the drop survives a reopen');
  assert.equal(text(await again.get(recordId('v', 'again'))), '3');
  assert.equal(text(await again.get(recordId('keep', 'k'))), 'kept');
  assert.deepEqual(await list(again, '', '\uffff'), ['keep|k=kept', 'keep|k2=k2', 'keep|k3=k3', 'v|again=3']);
});

test('merges keep the runs few; every key reads its latest value, deletions stay', async (t) => {
  const dir = await tempDir(t);
  const store = await RecordStore.open(dir);
  const model = new Map<string, string | null>();
  let x = 1;
  const next = (n: number): number => { x = (Math.imul(x, 1103515245) + 12345) >>> 0; return (x >>> 8) % n; };
  let maxRuns = 0;
  for (let f = 0; f < 40; f++) {
    for (let i = 0; i < 50; i++) {
      const id = recordId(next(2) === 0 ? 'v' : 'w', `key-${next(400)}`);
      if (next(5) === 0) { store.del(id); model.set(id, null); } else { const v = `f${f}i${i}`.repeat(next(20) + 1); store.put(id, b(v)); model.set(id, v); }
    }
    await store.flush();
    maxRuns = Math.max(maxRuns, store.runCount);
  }
  await store.idle();
  assert.ok(store.runCount <= 8, `runs: ${store.runCount}`);
  assert.ok(maxRuns <= 12, `at most ${maxRuns} runs at once`);
  assert.equal(store.lastMergeError, undefined);
  const check = async (s: RecordStore): Promise<void> => {
    for (const [id, v] of model) assert.equal(text(await s.get(id)), v, id);
    const live = [...model].filter(([, v]) => v !== null).map(([id, v]) => `${id.replace('\0', '|')}=${v}`).sort();
    assert.deepEqual((await list(s, '', '\uffff')).sort(), live);
  };
  await check(store);
  const runs = store.runCount;
  await store.close();
  const files = await readdir(dir);
  assert.deepEqual(files.filter((f) => !f.endsWith('.run')), ['MANIFEST']);
  assert.equal(files.length - 1, runs, 'merged runs were deleted');
  const again = await openStore(t, dir);
  await check(again);
});

test('a flush into a removed directory rejects with ENOENT and loses nothing', async (t) => {
  const dir = await tempDir(t);
  const store = await openStore(t, dir);
  store.put(recordId('v', 'a'), b('1'));
  await store.flush();
  store.put(recordId('v', 'b'), b('2'));
  store.del(recordId('v', 'a'));
  await rm(dir, { recursive: true, force: true });
  await assert.rejects(store.flush(), { code: 'ENOENT' });
  store.put(recordId('v', 'c'), b('3'));
  assert.equal(store.memtableSize, 3);
  assert.equal(text(await store.get(recordId('v', 'b'))), '2');
  assert.equal(await store.get(recordId('v', 'a')), null, 'the deletion is kept too');
  assert.deepEqual(await list(store, recordId('v', ''), recordId('v', '\uffff')), ['v|b=2', 'v|c=3']);
});

test('gets and cursors running alongside flushes and merges never miss a key', async (t) => {
  const store = await openStore(t, await tempDir(t));
  const big = Buffer.alloc(3000, 'x');
  for (let i = 0; i < 40; i++) store.put(recordId('c', `k${String(i).padStart(2, '0')}`), big);
  await store.flush();
  // Held open across the merges that replace its run: the run's file must stay readable until it is closed.
  const held = store.cursor(recordId('c', ''), recordId('c', '\uffff'));
  assert.equal((await held.next())?.id, recordId('c', 'k00'));
  const keys: string[] = [];
  let writing = true;
  const writer = (async () => {
    for (let f = 0; f < 30; f++) {
      for (let i = 0; i < 40; i++) {
        const id = recordId('v', `k${f}-${i}`);
        store.put(id, b(id.padEnd(1000, '.')));
        keys.push(id);
      }
      await store.flush();
    }
    writing = false;
  })();
  let reads = 0;
  while (writing) {
    const seen = keys.length;
    const got = await Promise.all(keys.slice(0, seen).filter((_, i) => i % 7 === reads % 7).map(async (id) => [id, await store.get(id)] as const));
    for (const [id, v] of got) assert.equal(text(v), id.padEnd(1000, '.'), `lost ${id}`);
    reads++;
    await new Promise((r) => setImmediate(r));
  }
  await writer;
  await store.idle();
  let rest = 0;
  for (let e = await held.next(); e !== undefined; e = await held.next()) rest += e.value.equals(big) ? 1 : 0;
  assert.equal(rest, 39);
  await held.close();
  assert.ok(reads > 10, `${reads} rounds of reads`);
  for (const id of keys) assert.equal(text(await store.get(id)), id.padEnd(1000, '.'));
});

test('a damaged run: get rejects with ESVCRUN, a merge fails quietly and leaves the runs as they were', async (t) => {
  const dir = await tempDir(t);
  const store = await openStore(t, dir);
  store.put(recordId('v', 'a'), b('first-record-value'));
  await store.flush();
  const [file] = (await readdir(dir)).filter((f) => f.endsWith('.run'));
  const path = join(dir, file!);
  const bytes = await readFile(path);
  const at = bytes.indexOf('first-record-value');
  bytes[at] ^= 0xff;
  await writeFile(path, bytes);
  // A fresh store, so that no read of the old bytes is cached anywhere.
  await store.close();
  const again = await openStore(t, dir);
  await assert.rejects(again.get(recordId('v', 'a')), { code: 'ESVCRUN' });
  // Three more runs make four of one tier: the merge that reads the damaged one fails.
  for (const k of ['b', 'c', 'd']) {
    again.put(recordId('v', k), b(k === 'b' ? 'second' : k));
    await again.flush();
  }
  await again.idle();
  assert.equal((again.lastMergeError as NodeJS.ErrnoException | undefined)?.code, 'ESVCRUN');
  assert.equal(again.runCount, 4);
  assert.deepEqual((await readdir(dir)).filter((f) => !f.endsWith('.run')), ['MANIFEST'], 'no temp file left');
  assert.equal(text(await again.get(recordId('v', 'b'))), 'second');
});
