/**
 * Must show 1 (issue 5): against a 4-node cluster (4 drives each) with node 4 killed, `rc admin info cluster` shows
 * 3 of 4 servers online, node 4's drives offline, and used/total/percent consistent with the drives' statfs
 * figures; `--json` parses and carries every field of SPEC §2.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { statfsSync } from 'node:fs';
import { humanBytes } from '../../src/cli/rc/format.js';
import { startCluster, type TestCluster } from '../cluster/helpers/cluster.js';
import { rcRunner, type RcRunner } from './helpers.js';

interface Drive { server: string; state: string; pool: number; set: number; index: number; totalBytes: number; usedBytes: number; availableBytes: number; path: string }
interface Report {
  version: number; status: string; serverVersion: string;
  backend: { type: string; onlineDrives: number; offlineDrives: number; standardParity: number; pools: Array<{ sets: number; drivesPerSet: number }> };
  servers: Array<{ endpoint: string; state: string; uptimeSeconds: number | null; network: Record<string, string>; pools: number[]; drives: Drive[] }>;
  drives: Drive[];
  usage: { totalBytes: number; usedBytes: number; availableBytes: number; usedPercent: number };
}

let c: TestCluster;
let r: RcRunner;

before(async () => {
  c = await startCluster({ nodes: 4, drivesPerNode: 4 });
  r = rcRunner();
  await r.rcOk(['alias', 'set', 'x', c.nodes[0]!.url, c.credentials.accessKey, c.credentials.secretKey]);
  await r.rcOk(['ready', 'x', '--cluster', '--timeout', '120s']);
  await r.rcOk(['mb', 'x/data']);
  await c.kill9(4);
});
after(async () => {
  await c.destroy();
  r.cleanup();
});

test('one node down: 3/4 servers online, its drives offline, usage from the online drives', async () => {
  const human = await r.rcOk(['admin', 'info', 'cluster', 'x']);
  const out = human.stdout;
  assert.match(out, /Status: +degraded/);
  assert.match(out, /Servers: +3\/4 online/);
  assert.match(out, /Disks: +12\/16 online/);
  assert.match(out, /EC parity: +4/);
  const node4 = c.nodes[3]!.url.replace('http://', '');
  assert.match(out, new RegExp(`● ${node4.replaceAll('.', '\\.')} +offline\\n +Uptime: +offline`));
  for (const n of c.nodes.slice(0, 3)) assert.match(out, new RegExp(`● ${n.url.replace('http://', '').replaceAll('.', '\\.')} +online\\n.*\\n.*\\n +Network: 3/4 OK\\n +Drives: +4/4 OK`));
  const disks = out.slice(out.indexOf('\nDisks\n'), out.indexOf('\nStorage\n'));
  const node4Rows = disks.slice(disks.indexOf(`\n${node4}  `) + 1).split('\n').slice(1, 5);
  assert.equal(node4Rows.filter((l) => / offline +- +- +- /.test(l)).length, 4, disks);
  for (const line of out.split('\n')) assert.ok(line.length <= 80, line);

  const rep = JSON.parse((await r.rcOk(['admin', 'info', 'cluster', 'x', '--json'])).stdout) as Report;
  assert.equal(rep.version, 1);
  assert.equal(rep.status, 'degraded');
  assert.equal(rep.backend.type, 'Erasure');
  assert.equal(rep.backend.standardParity, 4);
  assert.deepEqual([rep.backend.onlineDrives, rep.backend.offlineDrives], [12, 4]);
  assert.equal(rep.servers.length, 4);
  assert.equal(rep.servers.filter((s) => s.state === 'online').length, 3);
  for (const s of rep.servers) {
    assert.deepEqual(s.pools, [1]);
    assert.equal(s.drives.length, 4);
    if (s.state === 'online') assert.ok(typeof s.uptimeSeconds === 'number' && s.uptimeSeconds >= 0);
  }
  assert.equal(rep.drives.length, 16);
  assert.deepEqual(rep.drives.map((d) => d.index), Array.from({ length: 16 }, (_, i) => i + 1));
  const offline = rep.drives.filter((d) => d.state === 'offline');
  assert.equal(offline.length, 4);
  assert.ok(offline.every((d) => d.server === node4 && d.totalBytes === 0));

  // Every online drive reports its filesystem's statfs size; the summary sums the online drives.
  const online = rep.drives.filter((d) => d.state === 'ok');
  for (const d of online) {
    const node = c.nodes.findIndex((n) => n.url.endsWith(d.server)) + 1;
    const slot = Number(/d(\d+)$/.exec(d.path)?.[1]);
    const fs = statfsSync(c.drive(node, slot));
    assert.equal(d.totalBytes, fs.blocks * fs.bsize, d.path);
    assert.ok(d.usedBytes + d.availableBytes <= d.totalBytes);
  }
  assert.equal(rep.usage.totalBytes, online.reduce((n, d) => n + d.totalBytes, 0));
  assert.equal(rep.usage.usedBytes, online.reduce((n, d) => n + d.usedBytes, 0));
  assert.equal(rep.usage.usedPercent, Math.round((rep.usage.usedBytes / rep.usage.totalBytes) * 1000) / 10);
  assert.match(out, new RegExp(`Used: +\\S+ \\S+ of ${humanBytes(rep.usage.totalBytes).replace('.', '\\.')} \\(\\d+\\.\\d%\\)`));
});
