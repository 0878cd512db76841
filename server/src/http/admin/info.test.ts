import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { DriveReport, ServerReport } from '../../cluster/index.js';
import { assembleInfoReport } from './info.js';

const layout = { sets: 1, drivesPerSet: 4, parity: 1, readQuorum: 3, writeQuorum: 3 };

function drive(server: string, index: number, state: DriveReport['state'], total = 1000, used = 250): DriveReport {
  const up = state === 'ok' || state === 'unformatted';
  return {
    endpoint: `http://${server}/d${index}`, server, path: `/d${index}`, state, uuid: up ? `u${index}` : '', pool: 1, set: 1, index,
    totalBytes: up ? total : 0, usedBytes: up ? used : 0, availableBytes: up ? total - used : 0, healing: false,
  };
}

function server(name: string, drives: DriveReport[], state: ServerReport['state'] = 'online'): ServerReport {
  return { endpoint: name, state, uptimeSeconds: state === 'online' ? 5 : null, version: state === 'online' ? 'v' : null, pools: [1], network: {}, drives };
}

const inputs = (servers: ServerReport[]) => ({ serverVersion: 'v', deploymentId: 'd', region: 'r', pools: [layout], servers, buckets: 2, objects: 7 });

test('assembleInfoReport: online, then degraded, then offline below write quorum', () => {
  const all = assembleInfoReport(inputs([server('a:1', [drive('a:1', 2, 'ok'), drive('a:1', 1, 'ok')]), server('b:1', [drive('b:1', 3, 'ok'), drive('b:1', 4, 'ok')])]));
  assert.equal(all.status, 'online');
  assert.deepEqual(all.drives.map((d) => d.index), [1, 2, 3, 4], 'drives in pool/set/index order');
  assert.deepEqual(all.usage, { totalBytes: 4000, usedBytes: 1000, availableBytes: 3000, usedPercent: 25 });
  assert.deepEqual(all.backend.pools, [{ pool: 1, ...layout }]);
  assert.equal(all.backend.standardParity, 1);

  const one = assembleInfoReport(inputs([server('a:1', [drive('a:1', 1, 'ok'), drive('a:1', 2, 'ok')]), server('b:1', [drive('b:1', 3, 'ok'), drive('b:1', 4, 'faulty')])]));
  assert.equal(one.status, 'degraded');
  assert.deepEqual([one.backend.onlineDrives, one.backend.offlineDrives], [3, 1]);
  assert.deepEqual(one.usage, { totalBytes: 3000, usedBytes: 750, availableBytes: 2250, usedPercent: 25 });

  const down = assembleInfoReport(inputs([server('a:1', [drive('a:1', 1, 'ok'), drive('a:1', 2, 'ok')]), server('b:1', [drive('b:1', 3, 'offline'), drive('b:1', 4, 'offline')], 'offline')]));
  assert.equal(down.status, 'offline');
  assert.deepEqual([down.backend.onlineDrives, down.backend.offlineDrives], [2, 2]);
});

test('assembleInfoReport: an unformatted drive counts online but does not serve; percent has one decimal; no drives is 0 %', () => {
  const r = assembleInfoReport(inputs([server('a:1', [drive('a:1', 1, 'ok', 3000, 1000), drive('a:1', 2, 'ok', 3000, 1000), drive('a:1', 3, 'ok', 3000, 1000), drive('a:1', 4, 'unformatted', 3000, 1000)])]));
  assert.equal(r.status, 'degraded');
  assert.equal(r.backend.onlineDrives, 4);
  assert.equal(r.usage.usedPercent, 33.3);
  const empty = assembleInfoReport({ ...inputs([]), pools: [] });
  assert.equal(empty.usage.usedPercent, 0);
  assert.equal(empty.backend.standardParity, 0);
});
