import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDrive } from '../storage/index.js';
import type { Drive } from '../storage/index.js';
import { formatReady, probeFormats, waitForFormatQuorum } from './bootstrap.js';
import { RemoteDrive } from './remote-drive.js';
import { RpcClient, RpcUnavailableError } from './rpc/index.js';

test('formatReady: a majority of formats, or the formatter reaching every drive of a fresh deployment (table)', () => {
  const cases: [number, number, number, boolean, boolean][] = [
    // formatted, unformatted, unreachable, formatter → ready
    [0, 4, 0, true, true],
    [0, 4, 0, false, false],
    [0, 3, 1, true, false],
    [3, 0, 1, false, true],
    [2, 0, 2, false, false],
    [2, 2, 0, true, false],
    [3, 1, 0, false, true],
  ];
  for (const [formatted, unformatted, unreachable, formatter, ready] of cases) {
    assert.equal(formatReady({ formatted, unformatted, unreachable }, formatter), ready, JSON.stringify({ formatted, unformatted, unreachable, formatter }));
  }
});

test('waitForFormatQuorum over real drives: an unreachable peer holds a fresh start until the deadline; formats release it', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-boot-'));
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const client = new RpcClient({ origin: `http://127.0.0.1:${port}`, credentials: { accessKey: 'abc', secretKey: 'abcdefgh' }, timeoutMs: 500 });
  t.after(async () => { await client.close(); await rm(dir, { recursive: true, force: true, maxRetries: 5 }); });
  const locals = await Promise.all([1, 2, 3].map(async (i) => { const p = join(dir, `d${i}`); await mkdir(p); return new LocalDrive(p); }));
  const drives: Drive[] = [...locals, new RemoteDrive({ client, path: '/srv/d1' })];
  assert.deepEqual(await probeFormats(drives), { formatted: 0, unformatted: 3, unreachable: 1 });
  const waits: number[] = [];
  await assert.rejects(waitForFormatQuorum({ pools: [drives], formatter: true, timeoutMs: 50, intervalMs: 10, onWait: (s) => waits.push(s.unreachable) }),
    (err: unknown) => err instanceof RpcUnavailableError && /0 formatted, 3 empty, 1 unreachable of 4 drives/.test((err as Error).message));
  assert.ok(waits.length >= 1 && waits.every((u) => u === 1));
  for (const d of locals) await d.writeFormat(Buffer.from('{}'));
  assert.deepEqual(await waitForFormatQuorum({ pools: [drives], formatter: false, timeoutMs: 50, intervalMs: 10 }), { formatted: 3, unformatted: 0, unreachable: 1 });
});

test('waitForFormatQuorum per pool: a fresh pool added to a formatted one waits for the formatter', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-boot-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  const pool = async (name: string): Promise<LocalDrive[]> => Promise.all([1, 2].map(async (i) => {
    const p = join(dir, `${name}${i}`);
    await mkdir(p);
    return new LocalDrive(p);
  }));
  const [old, added] = [await pool('a'), await pool('b')];
  for (const d of old) await d.writeFormat(Buffer.from('{}'));
  // 2 of 4 drives formatted would be no majority overall, and a fresh pool must not be formatted by every node.
  await assert.rejects(waitForFormatQuorum({ pools: [old, added], formatter: false, timeoutMs: 30, intervalMs: 10 }),
    /format quorum not reached: 2 formatted, 2 empty, 0 unreachable of 4 drives/);
  assert.deepEqual(await waitForFormatQuorum({ pools: [old, added], formatter: true, timeoutMs: 30, intervalMs: 10 }), { formatted: 2, unformatted: 2, unreachable: 0 });
  for (const d of added) await d.writeFormat(Buffer.from('{}'));
  assert.deepEqual(await waitForFormatQuorum({ pools: [old, added], formatter: false, timeoutMs: 30, intervalMs: 10 }), { formatted: 4, unformatted: 0, unreachable: 0 });
});
