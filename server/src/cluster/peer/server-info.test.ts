import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDrive } from '../../storage/index.js';
import type { DriveSlotView } from '../../storage/index.js';
import { collectServerReport, offlineServerReport } from './server-info.js';

test('collectServerReport: statfs figures for a serving drive, missing for a vanished one, offline before storage opens', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-server-info-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  const places = [0, 1, 2, 3].map((index) => ({ endpoint: `http://n:1${join(dir, `d${index}`)}`, path: join(dir, `d${index}`), pool: 0, set: 0, index }));
  const slots: DriveSlotView[] = [
    { pool: 0, set: 0, index: 0, drive: new LocalDrive(dir), state: 'online', uuid: 'u0', healing: true },
    { pool: 0, set: 0, index: 1, drive: new LocalDrive(join(dir, 'gone')), state: 'online', uuid: 'u1', healing: false },
    { pool: 0, set: 0, index: 2, drive: new LocalDrive(join(dir, 'gone')), state: 'offline', uuid: 'u2', healing: false },
    { pool: 0, set: 0, index: 3, drive: new LocalDrive(dir), state: 'mismatched', uuid: 'u3', healing: false },
  ];
  const startedAt = new Date('2024-01-01T00:00:00Z');
  const report = await collectServerReport({
    endpoint: 'n:1', version: '9', startedAt, drives: places, slots: () => slots, network: async () => ({ 'm:1': 'offline' }),
    now: () => new Date('2024-01-01T00:01:30.900Z'),
  });
  const fs = await statfs(dir);
  assert.equal(report.uptimeSeconds, 90);
  assert.deepEqual(report.pools, [1]);
  assert.deepEqual(report.network, { 'm:1': 'offline' });
  const [ok, gone] = report.drives;
  assert.equal(ok?.state, 'ok');
  assert.equal(ok?.totalBytes, fs.blocks * fs.bsize);
  assert.ok(ok!.usedBytes > 0 && ok!.availableBytes > 0);
  assert.deepEqual([ok?.uuid, ok?.healing, ok?.index, ok?.server], ['u0', true, 1, 'n:1']);
  assert.deepEqual([gone?.state, gone?.totalBytes, gone?.index], ['missing', 0, 2]);
  assert.deepEqual(report.drives.slice(2).map((d) => d.state), ['missing', 'corrupt']);

  const starting = await collectServerReport({ endpoint: 'n:1', version: '9', startedAt, drives: places, slots: () => undefined, network: async () => ({}) });
  assert.deepEqual(starting.drives.map((d) => d.state), ['offline', 'offline', 'offline', 'offline']);
});

test('offlineServerReport: every drive offline with capacity 0, positions 1-based', () => {
  const r = offlineServerReport('x:9', [{ endpoint: 'http://x:9/d', path: '/d', pool: 1, set: 2, index: 3 }]);
  assert.deepEqual(r, {
    endpoint: 'x:9', state: 'offline', uptimeSeconds: null, version: null, pools: [2], network: {},
    drives: [{ endpoint: 'http://x:9/d', server: 'x:9', path: '/d', state: 'offline', uuid: '', pool: 2, set: 3, index: 4, totalBytes: 0, usedBytes: 0, availableBytes: 0, healing: false }],
  });
});
