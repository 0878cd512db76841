import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { palette } from './color.js';
import { parseInfoReport } from './info-report.js';
import { commonDir, renderCluster, renderDisks, renderServers, WIDTH } from './info-render.js';
import { RcError } from './errors.js';

const FIXTURE = new URL('../../../test/rc/fixtures/info-4-nodes-one-down.json', import.meta.url);
const raw = (): unknown => JSON.parse(readFileSync(FIXTURE, 'utf8'));
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

test('cluster view: Overview, node list, disk list and Storage summary of a 4-node cluster with one node down', () => {
  const out = renderCluster(parseInfoReport(raw()), palette(false));
  for (const section of ['Overview', 'Servers', 'Disks', 'Storage']) assert.match(out, new RegExp(`^${section}$`, 'm'));
  assert.match(out, /Status: +degraded/);
  assert.match(out, /Version: +0\.1\.0/);
  assert.match(out, /Servers: +3\/4 online/);
  assert.match(out, /Disks: +12\/16 online/);
  assert.match(out, /Backend: +Erasure, 1 pool \(1 set of 16 drives\)/);
  assert.match(out, /EC parity: +4 \(EC:4\)/);
  assert.match(out, /● 127\.0\.0\.4:9000 +offline\n +Uptime: +offline/);
  assert.match(out, /● 127\.0\.0\.1:9000 +online\n +Uptime: +1 hour 28 minutes\n +Version: 0\.1\.0\n +Network: 3\/4 OK\n +Drives: +4\/4 OK\n +Pool: +1st/);
  // The stopped node's four drives are listed, offline, without sizes.
  const node4 = out.split('127.0.0.4:9000').at(-1) ?? '';
  assert.equal((node4.match(/ offline +- +- +- d\d\n/g) ?? []).length, 4, out);
  // Positions are 1-based and a healing drive says so.
  assert.match(out, /\n +1 +1 +7 +healing +12\.0 GiB +100\.0 GiB +88\.0 GiB d3\n/);
  assert.match(out, /^127\.0\.0\.2:9000 {2}\/srv\/svc-run1234\/$/m);
  assert.match(out, /Used: +144\.0 GiB of 1\.2 TiB \(12\.0%\)/);
  assert.match(out, /Buckets: +3\n +Objects: +1200/);
});

test('every view fits in 80 columns and has no escape codes without colour', () => {
  const r = parseInfoReport(raw());
  for (const text of [renderCluster(r, palette(false)), renderServers(r, palette(false), true).join('\n'), renderDisks(r, palette(false)).join('\n')]) {
    assert.doesNotMatch(text, ANSI);
    for (const line of text.split('\n')) assert.ok(line.length <= WIDTH, `${line.length} > ${WIDTH}: ${line}`);
  }
});

test('with colour, states are coloured and lines still fit once the escapes are removed', () => {
  const text = renderCluster(parseInfoReport(raw()), palette(true));
  assert.match(text, /\u001b\[31moffline\u001b\[39m/);
  assert.match(text, /\u001b\[32monline\u001b\[39m/);
  for (const line of text.split('\n')) assert.ok(line.replace(ANSI, '').length <= WIDTH, line);
});

test('long drive paths are shortened in the middle, never wrapped', () => {
  const r = raw() as { drives: Array<{ path: string }> };
  for (const d of r.drives) d.path = `/very/long/mount/point/of/a/data/center/rack/${'x'.repeat(60)}/d1`;
  const lines = renderDisks(parseInfoReport(r), palette(false));
  assert.ok(lines.some((l) => l.includes('…')));
  for (const l of lines) assert.ok(l.length <= WIDTH, l);
});

test('commonDir keeps whole directory names', () => {
  assert.equal(commonDir(['/srv/a/d1', '/srv/a/d2']), '/srv/a/');
  assert.equal(commonDir(['/srv/a/d10', '/srv/a/d1']), '/srv/a/');
  assert.equal(commonDir(['/data1', '/data2']), '/');
  assert.equal(commonDir(['/only/one']), '/only/');
  assert.equal(commonDir([]), '');
});

test('an unknown report version or a non-report is a clear error, not a crash', () => {
  assert.throws(() => parseInfoReport({ ...(raw() as object), version: 99 }), (e: unknown) => e instanceof RcError && /format version 99/.test(e.message));
  assert.throws(() => parseInfoReport('<html>'), (e: unknown) => e instanceof RcError && /not a cluster information report/.test(e.message));
  // Missing optional parts render with placeholders.
  const minimal = parseInfoReport({ version: 1, servers: [{ endpoint: 'a:1', state: 'online' }] });
  assert.match(renderCluster(minimal, palette(false)), /Servers: +1\/1 online/);
});
