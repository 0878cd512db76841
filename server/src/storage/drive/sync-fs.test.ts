import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SyncShell, stopSyncShells, syncFileSystem } from './sync-fs.js';

async function scratch(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-syncfs-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

test('a sync shell answers each call in order, and says which path failed and why', async (t) => {
  const dir = await scratch(t);
  const shell = new SyncShell();
  // Several calls queued at once (the lanes above it never do more than one at a time, a shell must not care).
  await Promise.all([dir, dir, `-${dir}`.slice(1), dir].map((p) => shell.sync(p)));
  const pid = shell.pid;
  assert.ok(pid !== undefined);
  const missing = join(dir, 'no-such-dir');
  const results = await Promise.allSettled([shell.sync(dir), shell.sync(missing), shell.sync(dir)]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  const why = ((results[1] as PromiseRejectedResult).reason as Error).message;
  assert.ok(why.startsWith(`sync --file-system ${missing} failed: `) && /No such file/.test(why), why);
  // One shell served them all: no process per call.
  assert.equal(shell.pid, pid);
});

test('a sync shell that dies fails the call it held, and the next call starts a new one', async (t) => {
  const dir = await scratch(t);
  const shell = new SyncShell();
  await shell.sync(dir);
  const first = shell.pid!;
  // Killed right after the call was written, long before its fork and exec of `sync` could answer.
  const held = shell.sync(dir);
  process.kill(first, 'SIGKILL');
  await assert.rejects(held, /the sync shell exited \(SIGKILL\)/);
  await shell.sync(dir);
  const second = shell.pid!;
  assert.notEqual(second, first);
  // Dead while idle: the next call notices nothing but a new shell.
  process.kill(second, 'SIGKILL');
  await new Promise((r) => setTimeout(r, 100));
  await shell.sync(dir);
  assert.ok(shell.pid !== undefined && shell.pid !== second);
});

test('syncFileSystem: a path a line cannot carry is synced too, a missing one fails', async (t) => {
  const dir = await scratch(t);
  const odd = join(dir, 'line\nbreak');
  await mkdir(odd);
  await syncFileSystem(odd, 'test-device');
  await syncFileSystem(dir, 'test-device');
  await assert.rejects(syncFileSystem(join(dir, 'gone\nhere'), 'test-device'), /sync --file-system .*gone/);
});

test('a sync shell runs `sync --file-system -- <path>` once per call, and passes its failure on', async (t) => {
  const dir = await scratch(t);
  // A `sync` first on the PATH that records its arguments, and fails for one path as coreutils would.
  const bin = join(dir, 'bin');
  await mkdir(bin);
  const calls = join(dir, 'calls');
  await writeFile(join(bin, 'sync'), `#!/bin/sh\necho "$*" >> '${calls}'\ncase "$3" in *bad*) echo "sync: error syncing '$3': Input/output error" >&2; exit 1;; esac\n`);
  await chmod(join(bin, 'sync'), 0o755);
  const shell = new SyncShell({ ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` });
  const results = await Promise.allSettled([shell.sync('/data/d1'), shell.sync('/data/bad'), shell.sync('-odd name')]);
  assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.equal(((results[1] as PromiseRejectedResult).reason as Error).message,
    "sync --file-system /data/bad failed: sync: error syncing '/data/bad': Input/output error");
  assert.equal(await readFile(calls, 'utf8'), '--file-system -- /data/d1\n--file-system -- /data/bad\n--file-system -- -odd name\n');
});

test('stop: the calls already sent are answered, then the shell exits; a later call starts a new shell', async (t) => {
  const dir = await scratch(t);
  const shell = new SyncShell();
  await shell.sync(dir);
  const first = shell.pid!;
  const exited = new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      try { process.kill(first, 0); } catch { clearInterval(poll); resolve(); }
    }, 10);
  });
  // Two calls in flight when the stop comes: both answered, not failed by the shell's exit.
  const held = [shell.sync(dir), shell.sync(dir)];
  const started = performance.now();
  const stopped = shell.stop();
  await Promise.all(held);
  await stopped;
  await exited;
  // It ended with its stdin, well before stop's kill (5 s).
  assert.ok(performance.now() - started < 3000, `${performance.now() - started} ms`);
  await shell.stop(); // stopping a stopped shell is a no-op
  await shell.sync(dir);
  assert.ok(shell.pid !== undefined && shell.pid !== first);
  await shell.stop();
});

test('stopSyncShells: every shell syncFileSystem started is gone once it resolves', async (t) => {
  const dir = await scratch(t);
  // The shells of this process (the tests above leave their own SyncShell instances running).
  const shellPids = (): Set<string> => new Set(execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n').filter((l) => l.includes('while IFS= read -r p')).map((l) => l.trim().split(' ')[0]!));
  const before = shellPids();
  await syncFileSystem(dir, 'stop-device');
  const started = [...shellPids()].filter((p) => !before.has(p));
  assert.equal(started.length, 1, 'one shell for the device');
  await stopSyncShells();
  assert.equal(shellPids().has(started[0]!), false, 'gone once stopSyncShells resolved');
  await syncFileSystem(dir, 'stop-device'); // a new shell on demand
  await stopSyncShells();
});
