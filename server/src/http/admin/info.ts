/**
 * The cluster information report of `GET /svc/admin/v3/info` (SPEC §2, docs/admin-api.md): MinIO's InfoMessage
 * and RustFS's `rc admin info` merged (REFERENCE.md §1.2), in bytes, seconds and 1-based positions.
 */
import type { DriveReport, ServerReport } from '../../cluster/index.js';
import type { ObjectLayer, PoolLayoutView } from '../../storage/index.js';

/** Version of the report format: fields may be added within a version, never renamed or removed. */
export const INFO_REPORT_VERSION = 1;

/** The overall state (docs/admin-api.md). */
export type ClusterStatus = 'online' | 'degraded' | 'offline';

/** One pool of `backend.pools`. */
export interface PoolReport {
  pool: number;
  sets: number;
  drivesPerSet: number;
  parity: number;
  readQuorum: number;
  writeQuorum: number;
}

/** The JSON body of `GET info`. */
export interface InfoReport {
  version: number;
  status: ClusterStatus;
  serverVersion: string;
  deploymentId: string;
  region: string;
  backend: {
    type: 'Erasure';
    onlineDrives: number;
    offlineDrives: number;
    standardParity: number;
    pools: PoolReport[];
  };
  servers: ServerReport[];
  drives: DriveReport[];
  usage: { totalBytes: number; usedBytes: number; availableBytes: number; usedPercent: number };
  buckets: { count: number };
  objects: { count: number | null };
}

/** What the report is assembled from. */
export interface InfoInputs {
  serverVersion: string;
  deploymentId: string;
  region: string;
  pools: readonly PoolLayoutView[];
  servers: readonly ServerReport[];
  buckets: number;
  objects: number | null;
}

/** MinIO counts ok and unformatted drives as online (cmd/erasure.go getOnlineOfflineDisksStats). */
function isOnline(d: DriveReport): boolean {
  return d.state === 'ok' || d.state === 'unformatted';
}

/**
 * online: every server and drive up; offline: some set has fewer serving drives than its write quorum;
 * degraded: anything in between.
 */
function statusOf(pools: readonly PoolLayoutView[], servers: readonly ServerReport[], drives: readonly DriveReport[]): ClusterStatus {
  for (const [p, layout] of pools.entries()) {
    for (let s = 1; s <= layout.sets; s++) {
      const serving = drives.filter((d) => d.pool === p + 1 && d.set === s && d.state === 'ok').length;
      if (serving < layout.writeQuorum) return 'offline';
    }
  }
  const allUp = servers.every((sv) => sv.state === 'online') && drives.every((d) => d.state === 'ok');
  return allUp ? 'online' : 'degraded';
}

/** Assembles the report (pure). */
export function assembleInfoReport(inputs: InfoInputs): InfoReport {
  const drives = inputs.servers.flatMap((s) => s.drives)
    .sort((a, b) => a.pool - b.pool || a.set - b.set || a.index - b.index);
  const online = drives.filter(isOnline);
  const totalBytes = online.reduce((a, d) => a + d.totalBytes, 0);
  const usedBytes = online.reduce((a, d) => a + d.usedBytes, 0);
  const availableBytes = online.reduce((a, d) => a + d.availableBytes, 0);
  return {
    version: INFO_REPORT_VERSION,
    status: statusOf(inputs.pools, inputs.servers, drives),
    serverVersion: inputs.serverVersion,
    deploymentId: inputs.deploymentId,
    region: inputs.region,
    backend: {
      type: 'Erasure',
      onlineDrives: online.length,
      offlineDrives: drives.length - online.length,
      standardParity: inputs.pools[0]?.parity ?? 0,
      pools: inputs.pools.map((p, i) => ({
        pool: i + 1, sets: p.sets, drivesPerSet: p.drivesPerSet, parity: p.parity, readQuorum: p.readQuorum, writeQuorum: p.writeQuorum,
      })),
    },
    servers: [...inputs.servers],
    drives,
    usage: {
      totalBytes, usedBytes, availableBytes,
      usedPercent: totalBytes === 0 ? 0 : Math.round((usedBytes / totalBytes) * 1000) / 10,
    },
    buckets: { count: inputs.buckets },
    objects: { count: inputs.objects },
  };
}

/** Most objects counted before the count is given up (null): the report must stay cheap on a large store. */
export const MAX_COUNTED_OBJECTS = 1_000_000;

/** Buckets, and current objects over all buckets (null when a listing fails or the store is too large to count). */
export async function countContents(layer: ObjectLayer): Promise<{ buckets: number; objects: number | null }> {
  const buckets = await layer.listBuckets();
  let objects = 0;
  try {
    for (const b of buckets) {
      let startAfter = '';
      for (;;) {
        const page = await layer.listObjects(b.name, { prefix: '', delimiter: '', startAfter, maxKeys: 1000 });
        objects += page.objects.length;
        if (objects > MAX_COUNTED_OBJECTS) return { buckets: buckets.length, objects: null };
        if (!page.isTruncated || page.nextMarker === undefined) break;
        startAfter = page.nextMarker;
      }
    }
  } catch {
    return { buckets: buckets.length, objects: null };
  }
  return { buckets: buckets.length, objects };
}
