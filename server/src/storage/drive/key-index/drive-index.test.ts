import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, truncateSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DriveIndex } from './drive-index.js';

function withDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'svc-key-index-'));
  try {
    fn(join(dir, 'index'));
  } finally {
    rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

/** 64 KiB value-log segments: a few hundred records fill one, so that tests see collections. */
const SMALL_SEGMENTS = { segmentBytes: 64 * 1024 };

/** Truncates every run (a damaged index): the next open rebuilds it from the value log. */
function damageRuns(dir: string): void {
  for (const run of readdirSync(dir).filter((n) => n.startsWith('run-'))) truncateSync(join(dir, run), 10);
}

/** Collects every segment the index will; how many it collected. */
function collectAll(ix: DriveIndex): number {
  let n = 0;
  while (ix.collect()) n++;
  return n;
}

/** Closes `ix`, damages its runs and opens it again: the index rebuilt from what its value log holds. */
function rebuiltFromLog(ix: DriveIndex, dir: string): DriveIndex {
  ix.close();
  damageRuns(dir);
  return new DriveIndex(dir, SMALL_SEGMENTS);
}

/** Overwrites keys churn-0 … churn-(n-1) with version `round` (moves the log on, leaves older segments mostly dead). */
function putChurn(ix: DriveIndex, round: number, n: number): void {
  for (let i = 0; i < n; i++) ix.put([{ volume: 'bkt', key: `churn-${i}`, meta: meta(`churn-${i}`, round) }]);
}

/** Segment 0 of a 64 KiB-segment log: the key `deleted` among 150 records that stay live (never collected). */
function putDeletedAmongLive(ix: DriveIndex): void {
  ix.put([{ volume: 'bkt', key: 'deleted', meta: meta('deleted') }]);
  for (let i = 0; i < 150; i++) ix.put([{ volume: 'bkt', key: `live-${i}`, meta: meta(`live-${i}`) }]);
}

const meta = (key: string, v = 0): Buffer => Buffer.from(`record of ${key} v${v} `.repeat(20));
const get = (ix: DriveIndex, key: string, volume = 'bkt'): string | null => ix.get(volume, key)?.toString() ?? null;

test('put, overwrite, delete: each answer is the latest, and a put tells what it replaced', () => {
  withDir((dir) => {
    const ix = new DriveIndex(dir);
    assert.deepEqual(ix.put([{ volume: 'bkt', key: 'a', meta: meta('a'), previous: true }]), [null]);
    assert.equal(get(ix, 'a'), meta('a').toString());
    // Two puts of one key in one batch: the second replaces the first.
    const prev = ix.put([{ volume: 'bkt', key: 'a', meta: meta('a', 1), previous: true }, { volume: 'bkt', key: 'a', meta: meta('a', 2), previous: true }]);
    assert.deepEqual(prev.map((p) => p?.toString()), [meta('a').toString(), meta('a', 1).toString()]);
    assert.equal(ix.delete('bkt', 'a')?.toString(), meta('a', 2).toString());
    assert.equal(get(ix, 'a'), null);
    assert.equal(ix.delete('bkt', 'a'), null);
    assert.equal(get(ix, 'a', 'other'), null, 'ids are per volume');
    ix.close();
  });
});

test('flushed runs answer as the table did; merges keep them few; a reopened index replays what was not flushed', () => {
  withDir((dir) => {
    let ix = new DriveIndex(dir);
    const keys = Array.from({ length: 4000 }, (_, i) => `d${i % 10}/k${i}-${i % 7 === 0 ? 'ü' : ''}`);
    for (let f = 0; f < 40; f++) {
      ix.put(keys.slice(f * 100, f * 100 + 100).map((key) => ({ volume: 'bkt', key, meta: meta(key) })));
      // Overwrites and deletes of keys already in runs.
      if (f > 0) {
        ix.put([{ volume: 'bkt', key: keys[f - 1]!, meta: meta(keys[f - 1]!, f) }]);
        ix.delete('bkt', keys[f * 100 - 50]!);
      }
      ix.flush();
    }
    assert.equal(ix.tableSize, 0);
    assert.ok(ix.runCount <= 8, `${ix.runCount} runs after 40 flushes`);
    const expect = (index: DriveIndex): void => {
      keys.forEach((key, i) => {
        const f = Math.floor(i / 100);
        const want = i < 39 ? meta(key, i + 1) : i % 100 === 50 && f < 39 ? null : meta(key);
        assert.equal(get(index, key), want?.toString() ?? null, key);
      });
      assert.equal(get(index, 'absent'), null);
    };
    expect(ix);
    // Unflushed changes, then a crash (no flush, no close of the table: the files as they are).
    ix.put([{ volume: 'bkt', key: 'late', meta: meta('late') }]);
    ix.delete('bkt', keys[5]!);
    ix.close();
    ix = new DriveIndex(dir);
    assert.equal(ix.tableSize, 2, 'replayed from the log');
    assert.equal(get(ix, 'late'), meta('late').toString());
    assert.equal(get(ix, keys[5]!), null);
    ix.close();
  });
});

test('a record torn by a crash ends the replay there; the ones before it are kept', () => {
  withDir((dir) => {
    const ix = new DriveIndex(dir);
    ix.put([{ volume: 'bkt', key: 'one', meta: meta('one') }]);
    ix.put([{ volume: 'bkt', key: 'two', meta: meta('two') }]);
    ix.close();
    const seg = readdirSync(dir).find((n) => n.startsWith('seg-'))!;
    // Cut the second record in half: the bytes after it are zeros (space written beforehand).
    const raw = readFileSync(join(dir, seg));
    let end = raw.length;
    while (end > 0 && raw[end - 1] === 0) end--;
    const half = end - 100;
    raw.fill(0, half, end);
    writeFileSync(join(dir, seg), raw);
    const again = new DriveIndex(dir);
    assert.equal(get(again, 'one'), meta('one').toString());
    assert.equal(get(again, 'two'), null);
    again.close();
  });
});

test('a dropped volume loses its keys in the table, in runs and after a reopen; later puts count', () => {
  withDir((dir) => {
    let ix = new DriveIndex(dir);
    ix.put(['x', 'y'].map((key) => ({ volume: 'gone', key, meta: meta(key) })));
    ix.put([{ volume: 'kept', key: 'x', meta: meta('x') }]);
    ix.flush();
    ix.put([{ volume: 'gone', key: 'z', meta: meta('z') }]);
    ix.dropVolume('gone');
    ix.put([{ volume: 'gone', key: 'y', meta: meta('y', 9) }]);
    const check = (index: DriveIndex): void => {
      assert.equal(get(index, 'x', 'gone'), null);
      assert.equal(get(index, 'z', 'gone'), null);
      assert.equal(get(index, 'y', 'gone'), meta('y', 9).toString());
      assert.equal(get(index, 'x', 'kept'), meta('x').toString());
    };
    check(ix);
    ix.close();
    ix = new DriveIndex(dir);
    check(ix);
    ix.flush();
    ix.close();
    ix = new DriveIndex(dir);
    check(ix);
    ix.close();
  });
});

test('merges purge a dropped volume\'s entries from the runs; what the drop hides stays hidden after a reopen', () => {
  withDir((dir) => {
    let ix = new DriveIndex(dir);
    ix.put(Array.from({ length: 100 }, (_, i) => ({ volume: 'gone', key: `k${i}`, meta: meta(`k${i}`) })));
    ix.put([{ volume: 'kept', key: 'x', meta: meta('x') }]);
    ix.flush();
    assert.deepEqual(ix.runStats, { runs: 1, entries: 101 });
    ix.dropVolume('gone');
    ix.put([{ volume: 'gone', key: 'k1', meta: meta('k1', 2) }]);
    const keys = (p: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${p}${i}`);
    ix.put(keys('a', 29).map((key) => ({ volume: 'kept', key, meta: meta(key) })));
    ix.flush();
    // Two more runs alike in size: the four are merged into one, the dropped volume's 100 older entries left out.
    for (const p of ['b', 'c']) {
      ix.put(keys(p, 30).map((key) => ({ volume: 'kept', key, meta: meta(key) })));
      ix.flush();
    }
    assert.deepEqual(ix.runStats, { runs: 1, entries: 1 + 29 + 30 + 30 + 1 }, 'the kept volume\'s and the new gone/k1');
    const check = (index: DriveIndex): void => {
      assert.equal(get(index, 'k0', 'gone'), null);
      assert.equal(get(index, 'k1', 'gone'), meta('k1', 2).toString());
      for (const key of ['x', 'a0', 'b29', 'c7']) assert.equal(get(index, key, 'kept'), meta(key).toString());
      assert.deepEqual(index.children('gone', ''), ['k1']);
    };
    check(ix);
    ix.close();
    ix = new DriveIndex(dir);
    check(ix);
    ix.close();
  });
});

test('records roll over into new segments; every one is found again after a reopen', () => {
  withDir((dir) => {
    let ix = new DriveIndex(dir, SMALL_SEGMENTS);
    for (let i = 0; i < 400; i++) ix.put([{ volume: 'bkt', key: `k${i}`, meta: meta(`k${i}`) }]);
    ix.flush();
    for (let i = 400; i < 600; i++) ix.put([{ volume: 'bkt', key: `k${i}`, meta: meta(`k${i}`) }]);
    ix.close();
    const segments = readdirSync(dir).filter((n) => n.startsWith('seg-'));
    assert.ok(segments.length > 3, `${segments.length} segments`);
    for (const s of segments) assert.ok(statSync(join(dir, s)).size <= 64 * 1024 + 4 * 1024 * 1024);
    ix = new DriveIndex(dir, SMALL_SEGMENTS);
    for (let i = 0; i < 600; i++) assert.equal(get(ix, `k${i}`), meta(`k${i}`).toString(), `k${i}`);
    ix.close();
  });
});

test('a damaged run or manifest is rebuilt from the value log', () => {
  withDir((dir) => {
    let ix = new DriveIndex(dir);
    for (let f = 0; f < 3; f++) {
      ix.put(Array.from({ length: 50 }, (_, i) => ({ volume: 'bkt', key: `k${f}-${i}`, meta: meta(`k${f}-${i}`) })));
      ix.flush();
    }
    ix.close();
    const run = readdirSync(dir).find((n) => n.startsWith('run-'))!;
    truncateSync(join(dir, run), 10);
    ix = new DriveIndex(dir);
    assert.equal(ix.runCount, 0);
    for (let f = 0; f < 3; f++) for (let i = 0; i < 50; i++) assert.equal(get(ix, `k${f}-${i}`), meta(`k${f}-${i}`).toString());
    ix.flush();
    ix.close();
    writeFileSync(join(dir, 'MANIFEST'), '{"version":1,"runs":');
    ix = new DriveIndex(dir);
    assert.equal(get(ix, 'k2-49'), meta('k2-49').toString());
    ix.close();
  });
});

test('children and their states come from the table and the runs merged, deletions and drops left out', () => {
  withDir((dir) => {
    const ix = new DriveIndex(dir);
    const put = (volume: string, ...keys: string[]): void => void ix.put(keys.map((key) => ({ volume, key, meta: meta(key) })));
    put('bkt', 'a', 'a!b', 'a/x', 'a/y/z', 'b/1', 'é/1', 'z');
    put('other', 'a/q', 'm');
    ix.flush();
    put('bkt', 'c/deep/er', 'a/w');
    ix.delete('bkt', 'z');
    ix.flush();
    put('bkt', 'd');
    ix.delete('bkt', 'b/1');
    assert.deepEqual(ix.children('bkt', ''), ['a', 'a!b', 'c', 'd', 'é']);
    assert.deepEqual(ix.children('bkt', 'a/'), ['w', 'x', 'y']);
    assert.deepEqual(ix.children('bkt', 'a/y/'), ['z']);
    assert.deepEqual(ix.children('bkt', 'b/'), []);
    assert.deepEqual(ix.children('other', ''), ['a', 'm']);
    const states = ix.childStates('bkt', '', ['a', 'c', 'z', 'é'], true);
    assert.deepEqual(states.map((s) => [s.meta?.toString() ?? null, s.children]), [
      [meta('a').toString(), true], [null, true], [null, false], [null, true],
    ]);
    assert.deepEqual(ix.childStates('bkt', 'a/', ['x', 'y'], false), [{ meta: null, children: false }, { meta: null, children: true }]);
    ix.dropVolume('other');
    assert.deepEqual(ix.children('other', ''), []);
    // Many keys across many blocks and runs: every one listed once, in order.
    const many = Array.from({ length: 3000 }, (_, i) => `many/${String(i).padStart(4, '0')}`);
    for (let f = 0; f < 6; f++) {
      put('bkt', ...many.slice(f * 500, f * 500 + 500));
      ix.flush();
    }
    assert.deepEqual(ix.children('bkt', 'many/'), many.map((k) => k.slice(5)));
    ix.close();
  });
});

test('childStates answers as a lookup of each name would: any order, repeated names, names between a key and its directory, many runs', () => {
  withDir((dir) => {
    const ix = new DriveIndex(dir);
    // Segments whose ids interleave a key and its directory ("a", "a!b", "a-", "a/…"), non-ASCII, deep subtrees.
    const segs = ['a', 'a!b', 'a-', 'a.b', 'b', 'é', 'z', 'zz', '0', 'a0'];
    let seed = 7;
    // An LCG's high bits (its low bits repeat with short periods: they missed the case "a", "a!b", "a/x" here).
    const rnd = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % n;
    const live = new Map<string, string>();
    const key = (): string => Array.from({ length: 1 + rnd(3) }, () => segs[rnd(segs.length)]).join('/');
    for (let round = 0; round < 6; round++) {
      const items = Array.from({ length: 40 }, () => key());
      for (const k of items) live.set(k, `${k}@${round}`);
      ix.put(items.map((k) => ({ volume: 'bkt', key: k, meta: Buffer.from(live.get(k)!) })));
      for (let d = 0; d < 8; d++) {
        const k = key();
        ix.delete('bkt', k);
        live.delete(k);
      }
      if (round % 2 === 0) ix.flush();
      for (const dirKey of ['', 'a/', 'a!b/', 'é/', 'z/a/']) {
        const names = Array.from({ length: 1 + rnd(8) }, () => segs[rnd(segs.length)]!);
        const want = names.map((n) => ({
          meta: live.get(dirKey + n) ?? null,
          children: [...live.keys()].some((k) => k.startsWith(`${dirKey}${n}/`)),
        }));
        const got = ix.childStates('bkt', dirKey, names, true).map((st) => ({ meta: st.meta?.toString() ?? null, children: st.children }));
        assert.deepEqual(got, want, `round ${round}, ${dirKey} ${names.join(',')}`);
        assert.deepEqual(ix.childStates('bkt', dirKey, names, false).map((st) => st.children), want.map((w) => w.children));
      }
    }
    // The keys under a batch's first name can lie past its last name's: "a" < "a!b" < "a-" < "a/x"; "" (a key
    // "/x") sorts first but its keys after ".." and ".svc".
    const fixed = new DriveIndex(`${dir}-fixed`);
    fixed.put(['a', 'a!b', 'a-', 'a/x', '..', '.svc/f', '/x'].map((k) => ({ volume: 'v', key: k, meta: Buffer.from(k) })));
    assert.deepEqual(fixed.childStates('v', '', ['a'], false), [{ meta: null, children: true }]);
    assert.deepEqual(fixed.childStates('v', '', ['a', 'a!b'], false).map((st) => st.children), [true, false]);
    assert.deepEqual(fixed.childStates('v', '', ['', '..'], true).map((st) => [st.meta?.toString() ?? null, st.children]), [[null, true], ['..', false]]);
    // Names not asked between a name and its subtree are passed over.
    fixed.put(Array.from({ length: 50 }, (_, i) => ({ volume: 'v', key: `log-${i}`, meta: Buffer.from('x') })));
    fixed.put([{ volume: 'v', key: 'log', meta: Buffer.from('log') }, { volume: 'v', key: 'log/1', meta: Buffer.from('x') }]);
    fixed.flush();
    assert.deepEqual(fixed.childStates('v', '', ['log', 'log-7', 'zzz'], true).map((st) => [st.meta?.toString() ?? null, st.children]), [['log', true], ['x', false], [null, false]]);
    fixed.close();
    assert.deepEqual(ix.childStates('bkt', 'nothing/', ['a'], true), [{ meta: null, children: false }]);
    assert.deepEqual(ix.childStates('bkt', '', [], true), []);
    ix.close();
  });
});

test('the value log takes its space back: segments of replaced and deleted records are collected, nothing live is lost', () => {
  withDir((dir) => {
    let ix = new DriveIndex(dir, SMALL_SEGMENTS);
    const keys = Array.from({ length: 300 }, (_, i) => `k${i}`);
    for (let round = 0; round < 4; round++) {
      for (const key of keys) ix.put([{ volume: 'bkt', key, meta: meta(key, round) }]);
      ix.flush();
    }
    for (const key of keys.slice(0, 100)) ix.delete('bkt', key);
    ix.flush();
    ix.put([{ volume: 'gone', key: 'x', meta: meta('x') }]);
    ix.dropVolume('gone');
    ix.flush();
    const segments = (): number => readdirSync(dir).filter((n) => n.startsWith('seg-')).length;
    const before = segments();
    let collected = 0;
    while (ix.collect()) collected++;
    ix.flush();
    while (ix.collect()) collected++;
    assert.ok(collected > 0 && segments() < before / 2, `${before} segments, ${segments()} after ${collected} collections`);
    const check = (index: DriveIndex): void => {
      keys.forEach((key, i) => assert.equal(get(index, key), i < 100 ? null : meta(key, 3).toString(), key));
      assert.equal(get(index, 'x', 'gone'), null);
    };
    check(ix);
    // Live bytes match what is left: every segment still there holds the records the index points at.
    for (const [, bytes] of ix.liveBytes) assert.ok(bytes >= 0);
    ix.close();
    ix = new DriveIndex(dir, SMALL_SEGMENTS);
    check(ix);
    // And after a crash with the copies not yet flushed: replay brings them back.
    for (const key of keys.slice(200)) ix.put([{ volume: 'bkt', key, meta: meta(key, 9) }]);
    ix.flush();
    while (ix.collect());
    ix.close();
    ix = new DriveIndex(dir, SMALL_SEGMENTS);
    const final = (index: DriveIndex): void => {
      keys.forEach((key, i) => assert.equal(get(index, key), i < 100 ? null : meta(key, i >= 200 ? 9 : 3).toString(), key));
      assert.equal(get(index, 'x', 'gone'), null);
    };
    final(ix);
    ix.close();
    // A damaged run: the index is rebuilt from what the log still holds, deletions (copied forward) included.
    damageRuns(dir);
    ix = new DriveIndex(dir, SMALL_SEGMENTS);
    assert.equal(ix.runCount, 0);
    final(ix);
    ix.close();
  });
});

test('a collected deletion is written again: a rebuild from the log does not bring the deleted record back', () => {
  withDir((dir) => {
    let ix = new DriveIndex(dir, SMALL_SEGMENTS);
    putDeletedAmongLive(ix);
    // Segment 1 onwards: the deletion, then records overwritten until its segment is mostly dead.
    ix.delete('bkt', 'deleted');
    for (let round = 0; round < 4; round++) putChurn(ix, round, 120);
    ix.flush();
    assert.ok(collectAll(ix) > 0);
    assert.equal(get(ix, 'deleted'), null);
    ix.flush();
    ix = rebuiltFromLog(ix, dir);
    assert.equal(get(ix, 'deleted'), null, 'the deletion survived its segment');
    assert.equal(get(ix, 'live-7'), meta('live-7').toString());
    assert.equal(get(ix, 'churn-7'), meta('churn-7', 3).toString());
    ix.close();
  });
});

test('deletions leave the log with its oldest segment: once nothing older is left, they are not written again', () => {
  withDir((dir) => {
    let ix = new DriveIndex(dir, SMALL_SEGMENTS);
    const keys = Array.from({ length: 300 }, (_, i) => `k${i}`);
    for (const key of keys) ix.put([{ volume: 'bkt', key, meta: meta(key) }]);
    for (const key of keys) ix.delete('bkt', key);
    ix.flush();
    // Churn moves the log on; each pass collects what lies before the runs' covered position.
    for (let round = 0; round < 12; round++) {
      putChurn(ix, round, 150);
      ix.flush();
      while (ix.collect());
    }
    // What the log still holds, replayed whole (runs damaged): the live churn keys, and no deletion of a k key.
    ix = rebuiltFromLog(ix, dir);
    assert.equal(ix.runCount, 0);
    assert.equal(ix.tableSize, 150, 'only the churn keys\' records are left in the log');
    assert.equal(get(ix, 'k7'), null);
    assert.equal(get(ix, 'churn-7'), meta('churn-7', 11).toString());
    ix.close();
  });
});

test('a deletion a merge left out of the runs still moves with its segment while an older record of the key is in the log', () => {
  withDir((dir) => {
    let ix = new DriveIndex(dir, SMALL_SEGMENTS);
    putDeletedAmongLive(ix);
    ix.flush();
    // The deletion, in a later segment; then runs alike in size until they are merged into the oldest run, which
    // leaves deletions out.
    ix.delete('bkt', 'deleted');
    const churn = (round: number): void => {
      putChurn(ix, round, 150);
      ix.flush();
    };
    for (let round = 0; round < 3; round++) churn(round);
    assert.deepEqual(ix.runStats, { runs: 1, entries: 150 + 150 }, 'one run: the live and churn keys, the deleted key and its deletion left out');
    // More churn: the deletion's segment falls behind the runs and mostly dead.
    for (let round = 3; round < 6; round++) churn(round);
    assert.ok(collectAll(ix) > 0);
    ix.flush();
    ix = rebuiltFromLog(ix, dir);
    assert.equal(get(ix, 'deleted'), null, 'the deletion survived its segment');
    assert.equal(get(ix, 'live-7'), meta('live-7').toString());
    ix.close();
  });
});
