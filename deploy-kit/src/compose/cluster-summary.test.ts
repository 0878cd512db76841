import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeClusterFigures, formatBytes, summarizeClusterInfo } from './cluster-summary.js';
import { infoReportFixture } from './info-report.fixture.js';

test('the summary counts online servers, drives from the backend counts, and usage of the online drives', () => {
  const r = summarizeClusterInfo(infoReportFixture());
  assert.ok(r.ok);
  assert.deepEqual(r.summary, {
    status: 'degraded', servers: { online: 3, total: 4 }, drives: { online: 3, total: 4 },
    usage: { usedBytes: 3 * 2 ** 30, totalBytes: 30 * 2 ** 30, usedPercent: 10 }, serverVersion: '0.1.0',
  });
  assert.equal(describeClusterFigures(r.summary), 'servers 3/4 online, drives 3/4 online, 3.0 GiB used of 30.0 GiB (10.0%)');
});

test('a report without the documented shape is refused with the reason, never a crash', () => {
  const broken: [unknown, RegExp][] = [
    [null, /not a JSON object/],
    [[], /not a JSON object/],
    [{ ...infoReportFixture(), version: 2 }, /format version 2, not 1/],
    [{ ...infoReportFixture(), status: '' }, /no status/],
    [{ ...infoReportFixture(), backend: { onlineDrives: -1, offlineDrives: 0 } }, /no drive counts/],
    [{ ...infoReportFixture(), servers: [1] }, /no server list/],
    [{ ...infoReportFixture(), usage: { totalBytes: 1, usedBytes: 'x', usedPercent: 0 } }, /no usage figures/],
    [{ ...infoReportFixture(), usage: undefined }, /no usage$/],
  ];
  for (const [report, why] of broken) {
    const r = summarizeClusterInfo(report);
    assert.equal(r.ok, false, JSON.stringify(report)?.slice(0, 60));
    if (!r.ok) assert.match(r.error, why);
  }
});

test('bytes for people in binary units', () => {
  assert.deepEqual([0, 1023, 1536, 5 * 2 ** 20, 2 ** 40].map(formatBytes), ['0 B', '1023 B', '1.5 KiB', '5.0 MiB', '1.0 TiB']);
});
