/**
 * The fault run's faults, on real processes and real files (issue 10 "A fault-injection harness"): kill -9 and
 * restart of one node, bit flips in shard files (part.N) and in metadata records (xl.meta) on a live node's
 * drive, a full drive (a fixed-size tmpfs filled up with a ballast file) and a drive directory that vanishes
 * (renamed away and back). Faults run one after the other, and each waits until every node sees every drive
 * online again before the next one (a restarted node's drives stay offline in its peers' view for a while), so
 * at most one node or drive is away at a time: the faults stay within what EC:4 promises to survive;
 * bit flips only damage an object version whose record is present on enough drives that one more bad shard
 * stays within the parity (EC:4 of 16: at least 14 holders before the flip), once per version. A holder has the
 * version's record and every part file it names: a multipart upload completed just after a node came back has
 * records on all 16 drives but part data only where the parts were uploaded, until healed. Records are read in
 * either drive layout (helpers/drive-records.ts). A drive in the key-index layout has no metadata file to flip
 * bits in (its records are in the index its server's worker owns): there a metadata fault flips a bit in a shard
 * file of a large object instead, still a file; drives in the metadata-file layout keep their xl.meta bit flips.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { decodeObjectMeta } from '../../src/storage/format/index.js';
import { keyOfDir, listFiles, objectDir } from '../helpers/drive-files.js';
import { readRecordOnDisk, usesKeyIndex } from '../helpers/drive-records.js';
import { fillFileSystem } from '../helpers/fill-disk.js';
import type { TestCluster } from '../cluster/helpers/cluster.js';
import type { Rng } from './rng.js';

/** The kinds of faults the injector knows. */
export const FAULT_KINDS = ['kill-restart', 'bitflip-shard', 'bitflip-meta', 'full-drive', 'drive-away'] as const;

/** One kind of fault. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** What the injector did: faults injected by kind, and attempts that found nothing safe to damage. */
export interface FaultStats {
  injected: Record<FaultKind, number>;
  skipped: number;
  log: string[];
}

/** Where the faults go. */
export interface FaultTarget {
  cluster: TestCluster;
  bucket: string;
  /** The tmpfs drive the full-drive fault fills. */
  fullDrive: { node: number; drive: number };
  drivesPerNode: number;
  /** Minimum drives holding a version before a bit flip may damage one of them. */
  minHolders: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** How many drives each node (1-based index → count) reports online in /health/ready; undefined when it does not answer 200. */
async function onlineDrivesSeen(cluster: TestCluster): Promise<(number | undefined)[]> {
  return Promise.all(cluster.nodes.map(async (n) => {
    try {
      const r = await fetch(`${n.url}/health/ready`, { signal: AbortSignal.timeout(5_000) });
      const body = await r.json() as { details?: { storage?: { onlineDrives?: number } } };
      return r.status === 200 ? body.details?.storage?.onlineDrives : undefined;
    } catch {
      return undefined;
    }
  }));
}

/**
 * Polls until every node but `except` reports fewer than `drives` drives online (bounded by `ms`). The probes may
 * answer from a recent earlier check while a new one runs (http/health/latest-answer.ts); once a node has reported
 * the fault, a later "all online" from it comes from a check that began after the fault, so the settle that follows
 * cannot be fooled by an answer from before the fault.
 */
async function waitFaultSeen(cluster: TestCluster, drives: number, except: number | undefined, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  const seen = new Set<number>();
  for (;;) {
    (await onlineDrivesSeen(cluster)).forEach((n, i) => { if (n !== undefined && n < drives) seen.add(i + 1); });
    if (cluster.nodes.every((n) => n.index === except || seen.has(n.index))) return true;
    if (Date.now() > end) return false;
    await sleep(250);
  }
}

/** True when every node answers /health/ready 200 and counts all `drives` drives online. */
export async function allDrivesOnline(cluster: TestCluster, drives: number): Promise<boolean> {
  return (await onlineDrivesSeen(cluster)).every((n) => n === drives);
}

/** Polls {@link allDrivesOnline} until it holds or `ms` passes; returns whether it held. */
export async function waitAllDrivesOnline(cluster: TestCluster, drives: number, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await allDrivesOnline(cluster, drives)) return true;
    if (Date.now() > end) return false;
    await sleep(250);
  }
}

/**
 * The identity of the version the record of `key` on `drive` describes (as a restart would find it) and the part
 * files it names; undefined when there is no record or it does not decode.
 */
function readVersion(drive: string, bucket: string, key: string): { id: string; files: string[] } | undefined {
  try {
    const rec = readRecordOnDisk(drive, bucket, key);
    if (rec === null) return undefined;
    const m = decodeObjectMeta(rec);
    const dir = objectDir(drive, bucket, key);
    const files = m.dataDir === null ? [] : m.parts.map((p) => join(dir, m.dataDir!, `part.${p.number}`));
    return { id: `${m.key}|${m.versionId}|${m.modTime}|${m.dataDir ?? 'inline'}`, files };
  } catch {
    return undefined;
  }
}

/** Flips one random bit of `file` in place (the file keeps its size and inode). */
function flipBit(file: string, rng: Rng): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r+');
    const size = readFileSync(file).length;
    if (size === 0) return false;
    const at = rng.int(0, size - 1);
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, at);
    b[0]! ^= 1 << rng.int(0, 7);
    writeSync(fd, b, 0, 1, at);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Runs faults one after the other until `stop()`: every kind once first (in seeded order), then seeded picks. */
export async function runFaults(target: FaultTarget, rng: Rng, stop: () => boolean): Promise<FaultStats> {
  const { cluster, bucket } = target;
  const stats: FaultStats = { injected: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>, skipped: 0, log: [] };
  const t0 = Date.now();
  const note = (s: string): void => { stats.log.push(`+${((Date.now() - t0) / 1000).toFixed(1)}s ${s}`); };
  const flipped = new Set<string>();
  const nodes = cluster.nodes.length;
  const drives = target.drivesPerNode;

  // Records read during one bit-flip attempt, by drive and key: reading a key-index drive's record copies its index.
  const versions = new Map<string, ReturnType<typeof readVersion>>();
  const versionOn = (root: string, key: string): ReturnType<typeof readVersion> => {
    const at = `${root}\0${key}`;
    if (!versions.has(at)) versions.set(at, readVersion(root, bucket, key));
    return versions.get(at);
  };
  /** Drives whose record of `key` describes `version` and that hold every part file of it. */
  const holders = (key: string, version: string): number => {
    let n = 0;
    for (let i = 1; i <= nodes; i++) {
      for (let d = 1; d <= drives; d++) {
        const v = versionOn(cluster.drive(i, d), key);
        if (v !== undefined && v.id === version && v.files.every((f) => existsSync(f))) n++;
      }
    }
    return n;
  };

  const bitflip = (what: 'shard' | 'meta'): boolean => {
    const node = rng.int(1, nodes);
    const drive = rng.int(1, drives);
    const root = cluster.drive(node, drive);
    versions.clear();
    // On a key-index drive a metadata fault damages a shard file instead (no record is a file there: see the top).
    const inMeta = what === 'meta' && !usesKeyIndex(root);
    const files = listFiles(join(root, bucket))
      .filter((f) => (inMeta ? f.endsWith('/xl.meta') : /\/part\.\d+$/.test(f)));
    for (const file of rng.shuffle(files)) {
      const key = keyOfDir(root, bucket, inMeta ? join(file, '..') : join(file, '..', '..'));
      const version = key === undefined ? undefined : versionOn(root, key)?.id;
      if (version === undefined || flipped.has(version)) continue;
      // A shard file of a data directory the record no longer names (replaced, being deleted) is not a fault.
      if (!inMeta && !version.endsWith(`|${file.split('/').at(-2) ?? ''}`)) continue;
      if (holders(key!, version) < target.minHolders) continue;
      if (!flipBit(file, rng)) continue;
      flipped.add(version);
      const instead = what === 'meta' && !inMeta ? ' (for a metadata fault: the drive keeps its records in a key index)' : '';
      note(`bit flip in ${inMeta ? 'xl.meta' : 'a shard file'} of ${key} on node ${node} d${drive}${instead}`);
      return true;
    }
    return false;
  };

  const inject = async (kind: FaultKind): Promise<boolean> => {
    switch (kind) {
      case 'kill-restart': {
        const node = rng.int(1, nodes);
        const down = rng.int(2_000, 6_000);
        note(`kill -9 node ${node} for ${down} ms`);
        const killed = Date.now();
        await cluster.kill9(node);
        if (!await waitFaultSeen(cluster, nodes * drives, node, 20_000)) note('the other nodes did not report the dead node\'s drives offline');
        await sleep(down - (Date.now() - killed));
        await cluster.start(node);
        note(`node ${node} restarted`);
        return true;
      }
      case 'bitflip-shard': return bitflip('shard');
      case 'bitflip-meta': return bitflip('meta');
      case 'full-drive': {
        const { node, drive } = target.fullDrive;
        const hold = rng.int(3_000, 6_000);
        const ballast = fillFileSystem(cluster.drive(node, drive), '.fault-ballast');
        note(`drive node ${node} d${drive} full for ${hold} ms`);
        await sleep(hold);
        unlinkSync(ballast);
        return true;
      }
      case 'drive-away': {
        const node = rng.int(1, nodes);
        const candidates = Array.from({ length: drives }, (_, k) => k + 1)
          .filter((d) => !(node === target.fullDrive.node && d === target.fullDrive.drive));
        const drive = rng.pick(candidates);
        const dir = cluster.drive(node, drive);
        const away = `${dir}.away`;
        const hold = rng.int(2_000, 5_000);
        const gone = Date.now();
        renameSync(dir, away);
        note(`drive node ${node} d${drive} renamed away for ${hold} ms`);
        if (!await waitFaultSeen(cluster, nodes * drives, undefined, 20_000)) note('not every node reported the drive offline');
        await sleep(hold - (Date.now() - gone));
        // The server never recreates a missing drive root; if it did, its contents would be set aside (a lost shard each).
        if (existsSync(dir)) renameSync(dir, `${dir}.stray-${Date.now()}`);
        renameSync(away, dir);
        return true;
      }
    }
  };

  const plan: FaultKind[] = rng.shuffle(FAULT_KINDS);
  while (!stop()) {
    await sleep(rng.int(1_500, 4_000));
    if (stop()) break;
    const kind = plan.shift() ?? rng.pick(FAULT_KINDS);
    if (await inject(kind)) {
      stats.injected[kind]++;
      const settleFrom = Date.now();
      const settled = await waitAllDrivesOnline(cluster, nodes * drives, 60_000);
      note(settled ? `every node sees all drives online (${Date.now() - settleFrom} ms)` : 'drives still offline after 60 s');
    }
    else {
      stats.skipped++;
      note(`${kind}: nothing safe to damage yet`);
      if (!plan.includes(kind) && stats.injected[kind] === 0) plan.push(kind);
    }
  }
  return stats;
}
