/** Test data: an admin API information report (docs/admin-api.md, format version 1). */

/** A version-1 information report of a 4-node cluster with node2 down (the shape of docs/admin-api.md). */
export function infoReportFixture(): Record<string, unknown> {
  const drive = (n: number, state: string, total: number, used: number) => ({
    endpoint: `http://node${n}:9000/data1`, server: `node${n}:9000`, path: '/data1', state, uuid: state === 'ok' ? `u${n}` : '',
    pool: 1, set: 1, index: n, totalBytes: total, usedBytes: used, availableBytes: total - used, healing: false,
  });
  const drives = [drive(1, 'ok', 10 * 2 ** 30, 2 ** 30), drive(2, 'offline', 0, 0), drive(3, 'ok', 10 * 2 ** 30, 2 ** 30), drive(4, 'ok', 10 * 2 ** 30, 2 ** 30)];
  return {
    version: 1, status: 'degraded', serverVersion: '0.1.0', deploymentId: 'd', region: 'us-east-1',
    backend: { type: 'Erasure', onlineDrives: 3, offlineDrives: 1, standardParity: 2, pools: [{ pool: 1, sets: 1, drivesPerSet: 4, parity: 2, readQuorum: 2, writeQuorum: 3 }] },
    servers: [1, 2, 3, 4].map((n) => ({
      endpoint: `node${n}:9000`, state: n === 2 ? 'offline' : 'online', uptimeSeconds: n === 2 ? null : 60, version: n === 2 ? null : '0.1.0',
      pools: [1], network: {}, drives: [drives[n - 1]],
    })),
    drives,
    usage: { totalBytes: 30 * 2 ** 30, usedBytes: 3 * 2 ** 30, availableBytes: 27 * 2 ** 30, usedPercent: 10 },
    buckets: { count: 1 }, objects: { count: 12 },
  };
}
