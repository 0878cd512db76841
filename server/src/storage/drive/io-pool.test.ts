import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ioPoolSize, runIoJob, STUCK_MS, warmIoPool } from './io-pool.js';
import { DRIVE_MISSING, DRIVE_UNFORMATTED } from './io-worker-source.js';

/** A fresh directory, removed after the test. */
async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-iopool-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

/**
 * A directory standing for a drive with one file that never answers: opening a FIFO for reading blocks until a
 * writer comes. Beside it, `ok` reads as 'fine'.
 */
async function hungDrive(t: TestContext): Promise<{ dir: string; fifo: string }> {
  const dir = await tempDir(t);
  const fifo = join(dir, 'hung');
  execFileSync('mkfifo', [fifo]);
  await writeFile(join(dir, 'ok'), 'fine');
  return { dir, fifo };
}

test('a read job answers the whole file, and the error code when it cannot', async (t) => {
  const dir = await tempDir(t);
  const big = Buffer.alloc(200_000);
  for (let i = 0; i < big.length; i++) big[i] = i % 251;
  await writeFile(join(dir, 'big'), big);
  await writeFile(join(dir, 'small'), 'abc');
  assert.deepEqual(Buffer.from(await runIoJob({ op: 'read', path: join(dir, 'big') })), big, 'larger than the 64 KiB scratch buffer');
  assert.equal(Buffer.from(await runIoJob({ op: 'read', path: join(dir, 'small') })).toString(), 'abc', 'a smaller file after a larger one');
  await assert.rejects(runIoJob({ op: 'read', path: join(dir, 'absent') }), { code: 'ENOENT' });
  await assert.rejects(runIoJob({ op: 'read', path: join(dir, 'small', 'x') }), { code: 'ENOTDIR' });
  await assert.rejects(runIoJob({ op: 'read', path: dir }), { code: 'EISDIR' });
  // With a guard, an absent file says whether the drive itself is there (formatted, unformatted, missing).
  await writeFile(join(dir, 'format.json'), '{}');
  const guard = { format: join(dir, 'format.json'), root: dir };
  await assert.rejects(runIoJob({ op: 'read', path: join(dir, 'absent'), guard }), { code: 'ENOENT' });
  await assert.rejects(runIoJob({ op: 'read', path: join(dir, 'absent'), guard: { ...guard, format: join(dir, 'nope') } }), { code: DRIVE_UNFORMATTED });
  await assert.rejects(runIoJob({ op: 'read', path: join(dir, 'gone', 'x'), guard: { format: join(dir, 'gone', 'f'), root: join(dir, 'gone') } }), { code: DRIVE_MISSING });
  assert.equal(Buffer.from(await runIoJob({ op: 'read', path: join(dir, 'small'), guard })).toString(), 'abc', 'a present file is read as without a guard');
});

test('reads asked for in one turn are answered each with its own bytes or error, in any number', async (t) => {
  const dir = await tempDir(t);
  // More than two messages' worth (READS_PER_MESSAGE is 32), with failures among them.
  const n = 70;
  for (let i = 0; i < n; i++) if (i % 3 !== 0) await writeFile(join(dir, `f${i}`), `file ${i}`);
  const results = await Promise.allSettled(Array.from({ length: n }, (_, i) => runIoJob({ op: 'read', path: join(dir, `f${i}`) })));
  results.forEach((r, i) => {
    if (i % 3 === 0) assert.equal(r.status === 'rejected' && (r.reason as NodeJS.ErrnoException).code, 'ENOENT', `f${i} is absent`);
    else assert.equal(r.status === 'fulfilled' && Buffer.from(r.value).toString(), `file ${i}`);
  });
});

test('a worker stuck on a hung drive gets no new jobs: other reads still answer, and the pool shrinks back', async (t) => {
  const { dir, fifo } = await hungDrive(t);
  warmIoPool();
  const before = ioPoolSize();
  const hung: Promise<Uint8Array>[] = [];
  for (let i = 0; i < 2; i++) {
    hung.push(runIoJob({ op: 'read', path: fifo }));
    // Reads asked for in one turn share a message: one turn each puts them on different workers.
    await new Promise((r) => setImmediate(r));
  }
  await new Promise((r) => setTimeout(r, STUCK_MS + 300));
  // Every worker is now stuck: the next job must go to a new one and answer at once.
  const t0 = performance.now();
  const ok = runIoJob({ op: 'read', path: join(dir, 'ok') });
  await new Promise((r) => setImmediate(r)); // the turn's reads are posted
  assert.equal(ioPoolSize(), before + 1, 'a worker was added');
  assert.equal(Buffer.from(await ok).toString(), 'fine');
  // Stuck workers never answer (until the FIFO gets a writer): any bound far below "never" shows it; 5 s leaves room
  // for a new worker's start on a loaded machine.
  assert.ok(performance.now() - t0 < 5_000, `answered in ${Math.round(performance.now() - t0)} ms despite the stuck workers`);
  // The drive answers again: one writer releases every blocked reader, which then read it as empty.
  await (await open(fifo, 'w')).close();
  for (const h of hung) assert.equal((await h).byteLength, 0);
  for (let i = 0; i < 50 && ioPoolSize() > before; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(ioPoolSize(), before, 'the extra workers went once idle');
});

test('a read on a hung drive does not hold the other reads of its message: after STUCK_MS they answer through libuv', async (t) => {
  const { dir, fifo } = await hungDrive(t);
  await writeFile(join(dir, 'format.json'), '{}');
  warmIoPool();
  // Asked for in one turn: one message, the hung read first.
  const hung = runIoJob({ op: 'read', path: fifo });
  const ok = runIoJob({ op: 'read', path: join(dir, 'ok') });
  const absent = runIoJob({ op: 'read', path: join(dir, 'absent'), guard: { format: join(dir, 'format.json'), root: dir } });
  const gone = runIoJob({ op: 'read', path: join(dir, 'gone', 'x'), guard: { format: join(dir, 'gone', 'f'), root: join(dir, 'gone') } });
  const t0 = performance.now();
  const [okR, absentR, goneR] = await Promise.allSettled([ok, absent, gone]);
  const took = performance.now() - t0;
  assert.equal(okR.status === 'fulfilled' && Buffer.from(okR.value).toString(), 'fine');
  const code = (r: PromiseSettledResult<unknown>): unknown => (r.status === 'rejected' ? (r.reason as NodeJS.ErrnoException).code : 'answered');
  assert.equal(code(absentR), 'ENOENT', 'the same codes as the worker: the drive is there');
  assert.equal(code(goneR), DRIVE_MISSING, 'the same codes as the worker: the drive is gone');
  assert.ok(took >= STUCK_MS * 0.9, `held by the hung read first (${Math.round(took)} ms): the rescue is what answered`);
  assert.ok(took < STUCK_MS + 4_000, `answered ${Math.round(took)} ms after asking, not never`);
  // Release both readers of the FIFO (the worker's and libuv's): each writer that comes and goes ends the opens
  // blocked at that moment.
  let settled = false;
  void hung.then(() => { settled = true; }, () => { settled = true; });
  const until = (): boolean => settled && performance.now() - t0 > took + 300;
  while (!until()) {
    try { closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)); } catch { /* no reader at this moment */ }
    await new Promise((r) => setTimeout(r, 2));
  }
  // Whichever reader of the FIFO answered first settled it (the worker reads it as empty; libuv's positional read
  // of a pipe fails with ESPIPE): released either way, nothing left blocked.
  assert.ok(settled);
});
