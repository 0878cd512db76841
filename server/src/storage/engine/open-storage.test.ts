import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { openStorage } from './open-storage.js';
import { FormatMismatchError, InvalidStorageConfigError } from './storage-errors.js';
import { NO_META, get, pattern, put, testCluster } from './testing.js';

test('a drive of another deployment, a changed layout and a moved drive are refused with the reason', async (t) => {
  const a = await testCluster(1, 4, 2);
  const b = await testCluster(1, 4, 2);
  t.after(async () => { await a.cleanup(); await b.cleanup(); });
  const sa = await a.open();
  const sb = await b.open();
  await sa.close();
  await sb.close();
  const foreign = [[a.sets[0]![0]!, a.sets[0]![1]!, a.sets[0]![2]!, b.sets[0]![3]!]];
  await assert.rejects(openStorage({ sets: foreign, parity: 2 }), (err: Error) => err instanceof FormatMismatchError
    && err.message.includes(b.sets[0]![3]!) && err.message.includes(sb.deploymentId));
  await assert.rejects(openStorage({ sets: [a.sets[0]!.slice(0, 2), a.sets[0]!.slice(2)], parity: 1 }), (err: Error) => err instanceof FormatMismatchError
    && /1 set\(s\) of 4 drives, now configured as 2 set\(s\) of 2\/2/.test(err.message));
  const swapped = [[a.sets[0]![1]!, a.sets[0]![0]!, a.sets[0]![2]!, a.sets[0]![3]!]];
  await assert.rejects(openStorage({ sets: swapped, parity: 2 }), (err: Error) => err instanceof FormatMismatchError && err.message.includes('position'));
  const again = await openStorage({ sets: a.sets, parity: 2 });
  assert.equal(again.deploymentId, sa.deploymentId);
  await again.close();
});

test('invalid layouts are refused', async () => {
  await assert.rejects(openStorage({ sets: [], parity: 0 }), InvalidStorageConfigError);
  await assert.rejects(openStorage({ sets: [['/x/a', '/x/b'], ['/x/c']], parity: 1 }), InvalidStorageConfigError);
  await assert.rejects(openStorage({ sets: [['/x/a', '/x/b', '/x/c', '/x/d']], parity: 3 }), /parity must be 0..2/);
  await assert.rejects(openStorage({ sets: [['/x/a', '/x/a']], parity: 1 }), /listed twice/);
});

test('temp leftovers of a crashed write are removed at open', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  await st.close();
  for (const root of c.sets[0]!) {
    await mkdir(join(root, '.svc.sys', 'tmp', 'crashed', 'data'), { recursive: true });
    await writeFile(join(root, '.svc.sys', 'tmp', 'crashed', 'data', 'part.1'), 'junk');
  }
  await c.open();
  for (const root of c.sets[0]!) assert.deepEqual(await readdir(join(root, '.svc.sys', 'tmp')), []);
});

test('kill -9 in the middle of an overwrite keeps the old object and nothing partial is listed', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const old = pattern(3 * 1024 * 1024 + 1);
  await put(st, 'bkt', 'key', old);
  await st.close();
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./testdata/crash-put.ts', import.meta.url)), JSON.stringify(c.sets)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => { if (d.toString().includes('streaming')) resolve(); });
    child.on('exit', (code) => reject(new Error(`child exited early with ${code}`)));
  });
  const temps = await readdir(join(c.sets[0]![0]!, '.svc.sys', 'tmp'));
  assert.ok(temps.length > 0, 'the child was writing temp shards');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  const again = await c.open();
  assert.ok((await get(again, 'bkt', 'key')).equals(old));
  const list = await again.listObjects('bkt', { prefix: '', delimiter: '', startAfter: '', maxKeys: 10 });
  assert.deepEqual(list.objects.map((o) => [o.key, o.size]), [['key', old.length]]);
  for (const root of c.sets[0]!) assert.deepEqual(await readdir(join(root, '.svc.sys', 'tmp')), []);
});

test('64 MiB streams through with bounded buffers and the right MD5', async (t) => {
  const c = await testCluster(1, 4, 2);
  t.after(() => c.cleanup());
  const st = await c.open();
  await st.makeBucket('bkt');
  const total = 64 * 1024 * 1024;
  const chunk = pattern(64 * 1024 + 3);
  const want = createHash('md5');
  let sent = 0;
  const body = new Readable({
    read() {
      if (sent >= total) { this.push(null); return; }
      const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += piece.length;
      want.update(piece);
      this.push(piece);
    },
  });
  const info = await st.putObject('bkt', 'big', body, { size: total, metadata: NO_META });
  const digest = want.digest('hex');
  assert.equal(info.etag, digest);
  const got = createHash('md5');
  let size = 0;
  for await (const c2 of (await st.openObject('bkt', 'big')).read()) {
    got.update(c2 as Buffer);
    size += (c2 as Buffer).length;
  }
  assert.equal(size, total);
  assert.equal(got.digest('hex'), digest);
});
