import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { loadBitrotHasher } from '../bitrot/index.js';
import type { Drive } from '../drive/index.js';
import { InlineCommits, LocalDrive, UnformattedDiskError } from '../drive/index.js';
import { MAX_DATA, MAX_PARITY, onEach } from '../erasure/index.js';
import { DISTRIBUTION_ALGO, decodeFormat, driveFormat, encodeFormat, findDrive } from '../format/index.js';
import type { DriveFormat } from '../format/index.js';
import type { BucketRecordCache } from './bucket-record-cache.js';
import { DriveHealTracker } from './drive-heal-tracker.js';
import { DriveMonitor, restoreBuckets } from './drive-monitor.js';
import { combinedDriveView, poolDriveView } from './drive-view.js';
import type { DriveViewHooks } from './drive-view.js';
import { ErasureSet } from './erasure-set.js';
import type { StorageLogger } from './erasure-set.js';
import { ErasureSets } from './erasure-sets.js';
import { HealQueue } from './heal-queue.js';
import { attachHealing, combineHealing } from './heal-status.js';
import type { HealingHooks } from './heal-status.js';
import { LocalLocker } from './locker.js';
import type { NamespaceLocker } from './locker.js';
import type { ObjectLayer } from './object-layer.js';
import { Scanner, scannerSettings } from './scanner.js';
import type { ScannerOptions } from './scanner.js';
import { ServerPools } from './server-pools.js';
import { SetDrive } from './set-drive.js';
import { FormatMismatchError, InvalidStorageConfigError } from './storage-errors.js';

/** Options of {@link openStorage}. */
export interface OpenStorageOptions {
  /** Absolute drive root paths, grouped by erasure set (all sets the same size). */
  sets: string[][];
  /** Parity drives per set (0..N/2). */
  parity: number;
  logger?: StorageLogger;
  /** Drives to use instead of LocalDrive(path) (remote drives, tests); same shape as `sets`. */
  drives?: Drive[][];
  locker?: NamespaceLocker;
  /** How often offline drives are re-checked (default 3000 ms). */
  driveCheckIntervalMs?: number;
  /** How soon a drive taken offline by a failed call is re-checked (default 1000 ms, at most the interval). */
  driveFaultRecheckMs?: number;
  /**
   * Temp-area entries younger than this are kept when a local drive is cleaned at start or when it comes back
   * (default 0: one process owns every drive). Cluster nodes pass a grace period: peers write into these areas.
   */
  tempGraceMs?: number;
  /** Background scanner settings (scanner.ts); `false` leaves it off (Storage.runScanCycle still works). */
  scanner?: ScannerOptions | false;
  /** Bucket record cache (bucket-record-cache.ts); a cluster node passes one wired to its peers. */
  bucketRecords?: BucketRecordCache;
}

/** The opened storage: the ObjectLayer plus deployment identity and test/admin hooks. */
export type Storage = ObjectLayer & {
  deploymentId: string;
  /** Resolves once queued heals have run. */
  drainHeals(): Promise<void>;
} & HealingHooks & DriveViewHooks;

const NOOP_LOGGER: StorageLogger = { info() {}, warn() {}, error() {} };

function validate(opts: OpenStorageOptions): void {
  const { sets, parity } = opts;
  if (!Array.isArray(sets) || sets.length === 0) throw new InvalidStorageConfigError('at least one erasure set is required');
  const n = sets[0]!.length;
  if (sets.some((s) => s.length !== n)) throw new InvalidStorageConfigError('all erasure sets must have the same number of drives');
  const total = sets.reduce((a, s) => a + s.length, 0);
  if (n < 1 || n > 16 || (n === 1 && total > 1)) throw new InvalidStorageConfigError(`erasure sets must have 2..16 drives (or one single drive), got ${n}`);
  if (!Number.isInteger(parity) || parity < 0 || parity > Math.floor(n / 2)) {
    throw new InvalidStorageConfigError(`parity must be 0..${Math.floor(n / 2)} for ${n} drives per set, got ${parity}`);
  }
  if (parity > MAX_PARITY) throw new InvalidStorageConfigError(`parity above ${MAX_PARITY} is not supported`);
  if (n - parity > MAX_DATA) throw new InvalidStorageConfigError(`more than ${MAX_DATA} data drives per set are not supported`);
  const paths = sets.flat();
  if (new Set(paths).size !== paths.length) throw new InvalidStorageConfigError('a drive path is listed twice');
  if (opts.scanner !== undefined && opts.scanner !== false) scannerSettings(opts.scanner);
}

function sameLayout(a: readonly (readonly string[])[], b: readonly (readonly string[])[]): boolean {
  return a.length === b.length && a.every((row, i) => row.length === b[i]!.length && row.every((x, j) => x === b[i]![j]));
}

/**
 * Reads every drive's format and decides the deployment: all drives fresh → a new deployment is
 * formatted; otherwise the format held by most drives is the reference, drives of another
 * deployment or at another position are refused (FormatMismatchError naming the drive and the
 * difference), and empty drives are formatted as replacements and healed in the background.
 */
async function resolveFormats(
  drives: Drive[][], parity: number, logger: StorageLogger, deploymentId: string | undefined,
): Promise<{ reference: DriveFormat; fresh: boolean[][] }> {
  const flat = drives.flat();
  const read = await onEach(flat, async (d) => decodeFormat(await d.readFormat()));
  const formats = new Map<string, { f: DriveFormat; n: number }>();
  read.forEach((r) => {
    if (!r.ok) return;
    const id = `${r.value.deploymentId}/${JSON.stringify(r.value.sets)}`;
    const e = formats.get(id) ?? { f: r.value, n: 0 };
    e.n++;
    formats.set(id, e);
  });
  let reference: DriveFormat;
  if (formats.size === 0) {
    if (!read.some((r) => !r.ok && r.error instanceof UnformattedDiskError)) {
      throw new InvalidStorageConfigError(`no drive is reachable: ${flat.map((d) => d.endpoint).join(', ')}`);
    }
    reference = {
      version: 1, format: 'svc', deploymentId: deploymentId ?? randomUUID(), thisDrive: '',
      sets: drives.map((s) => s.map(() => randomUUID())), distributionAlgo: DISTRIBUTION_ALGO,
    };
    logger.info(`new deployment ${reference.deploymentId}: formatting ${flat.length} drives`);
  } else {
    reference = [...formats.values()].sort((a, b) => b.n - a.n)[0]!.f;
    if (deploymentId !== undefined && reference.deploymentId !== deploymentId) {
      throw new FormatMismatchError(`the drives of this pool belong to deployment ${reference.deploymentId}, the first pool's to ${deploymentId}; wipe this pool's drives or remove the pool`);
    }
  }
  const shape = drives.map((s) => s.length);
  const refShape = reference.sets.map((s) => s.length);
  if (JSON.stringify(shape) !== JSON.stringify(refShape)) {
    throw new FormatMismatchError(`drive layout changed: the drives were formatted as ${refShape.length} set(s) of ${refShape.join('/')} drives, now configured as ${shape.length} set(s) of ${shape.join('/')}`);
  }
  const fresh = drives.map((s) => s.map(() => false));
  const offsets = drives.map((_, s) => drives.slice(0, s).reduce((a, x) => a + x.length, 0));
  const formattedInSet = (s: number): number => read.slice(offsets[s]!, offsets[s]! + drives[s]!.length)
    .filter((r) => r.ok && r.value.deploymentId === reference.deploymentId).length;
  let i = 0;
  for (let s = 0; s < drives.length; s++) {
    for (let j = 0; j < drives[s]!.length; j++, i++) {
      const r = read[i]!;
      const d = drives[s]![j]!;
      if (r.ok) {
        const f = r.value;
        if (f.deploymentId !== reference.deploymentId) {
          throw new FormatMismatchError(`drive ${d.endpoint} belongs to deployment ${f.deploymentId}, not ${reference.deploymentId}; wipe it or remove it from the drive list`);
        }
        if (!sameLayout(f.sets, reference.sets)) throw new FormatMismatchError(`drive ${d.endpoint} has a different set layout than the other drives`);
        const pos = findDrive(reference.sets, f.thisDrive);
        if (pos === undefined || pos.set !== s || pos.index !== j) {
          const where = pos === undefined ? 'an unknown position' : `set ${pos.set + 1} position ${pos.index + 1}`;
          throw new FormatMismatchError(`drive ${d.endpoint} was formatted for ${where} but is configured at set ${s + 1} position ${j + 1}; keep the drive order`);
        }
      } else if (r.error instanceof UnformattedDiskError) {
        if (formats.size > 0 && formattedInSet(s) < drives[s]!.length - parity) {
          logger.error(`drive ${d.endpoint} is empty but set ${s + 1} lacks read quorum of formatted drives: not formatting it`);
          continue;
        }
        // A replacement drive says so in its format until a full heal fills it (DriveFormat.healing).
        const replacement = formats.size > 0;
        await d.writeFormat(encodeFormat(driveFormat(reference, reference.sets[s]![j]!, replacement)));
        fresh[s]![j] = replacement;
        if (replacement) logger.warn(`drive ${d.endpoint} was empty: formatted as a replacement, healing`);
      } else {
        logger.warn(`drive ${d.endpoint} is offline: ${(r.error as Error).message}`);
      }
    }
  }
  return { reference, fresh };
}

/**
 * Opens the storage over `opts.sets` (the composition root's entry point): validates the layout,
 * reads/creates formats, cleans temp leftovers of crashed writes, starts the drive monitor and
 * the heal queue. With one drive there is no erasure (K=1, M=0).
 */
export async function openStorage(opts: OpenStorageOptions): Promise<Storage> {
  return openPool(opts, undefined);
}

/** One pool of {@link openPools}: its sets, parity and (remote or test) drives. */
export type PoolOptions = Pick<OpenStorageOptions, 'sets' | 'parity' | 'drives'>;

/** Options of {@link openPools}: the pools in order plus what all pools share. */
export interface OpenPoolsOptions extends Omit<OpenStorageOptions, 'sets' | 'parity' | 'drives'> {
  pools: PoolOptions[];
}

/**
 * Opens a deployment of one or more pools (MinIO's server pools, REFERENCE.md §1.3). Every pool is formatted with
 * the first pool's deployment id: a pool added later (empty drives) joins the deployment, a pool whose drives
 * belong to another deployment is refused. One pool is returned as is (no placement layer in the way).
 */
export async function openPools(opts: OpenPoolsOptions): Promise<Storage> {
  if (opts.pools.length === 0) throw new InvalidStorageConfigError('at least one pool is required');
  const { pools, ...shared } = opts;
  const first = await openPool({ ...shared, ...pools[0]! }, undefined);
  if (pools.length === 1) return first;
  const opened = [first];
  try {
    for (const pool of pools.slice(1)) opened.push(await openPool({ ...shared, ...pool }, first.deploymentId));
  } catch (err) {
    await Promise.all(opened.map((p) => p.close()));
    throw err;
  }
  return Object.assign(combineHealing(new ServerPools(opened), opened), combinedDriveView(opened));
}

async function openPool(opts: OpenStorageOptions, deploymentId: string | undefined): Promise<ErasureSets & HealingHooks & DriveViewHooks> {
  validate(opts);
  const logger = opts.logger ?? NOOP_LOGGER;
  if (opts.drives === undefined) {
    await Promise.all(opts.sets.flat().map((p) => mkdir(p, { recursive: true }).catch(() => undefined)));
  }
  const drives = opts.drives ?? opts.sets.map((s) => s.map((p) => new LocalDrive(p)));
  const [hasher, { reference, fresh }] = await Promise.all([loadBitrotHasher(), resolveFormats(drives, opts.parity, logger, deploymentId)]);
  const heals = new HealQueue(logger);
  const locker = opts.locker ?? new LocalLocker();
  let monitor: DriveMonitor | undefined;
  const slots = drives.map((s, si) => s.map((d, j) => new SetDrive(d, si, j, reference.sets[si]![j]!)));
  for (const s of drives) {
    // One commit message per turn for the set's local drives, not one per drive (inline-commits.ts says why).
    const queue = new InlineCommits();
    for (const d of s) if (d instanceof LocalDrive) d.shareInlineCommits(queue);
  }
  await Promise.all(slots.flat().map(async (slot) => {
    try {
      const f = decodeFormat(await slot.drive.readFormat());
      if (f.thisDrive !== slot.uuid) return;
      // Only the node owning a drive cleans its temp area, and in a cluster only old leftovers: another node's
      // in-flight write (or format) lives there too.
      if (slot.drive.isLocal) await slot.drive.cleanTemp(opts.tempGraceMs ?? 0);
      slot.unhealed = f.healing !== undefined;
      slot.state = 'online';
    } catch { /* stays offline; the monitor retries */ }
  }));
  const sets = slots.map((s, index) => new ErasureSet({
    index, drives: s, parity: opts.parity, deploymentId: reference.deploymentId, hasher, locker, heals, logger,
    onDriveFault: (slot, err) => monitor?.driveFault(slot, err),
    recheck: () => monitor?.checkNow() ?? Promise.resolve(),
  }));
  const layer = new ErasureSets(reference.deploymentId, sets, heals, opts.bucketRecords);
  const driveHeals = new DriveHealTracker(sets);
  monitor = new DriveMonitor({
    sets, reference, heals, logger, intervalMs: opts.driveCheckIntervalMs ?? 3000, faultRecheckMs: opts.driveFaultRecheckMs,
    progress: driveHeals, tempGraceMs: opts.tempGraceMs ?? 0,
  });
  layer.setChecker(monitor);
  for (const set of sets) {
    for (const slot of set.drives) {
      // Fresh replacements, and this node's drives whose heal a restart interrupted (their format still says so).
      const resume = slot.unhealed && slot.drive.isLocal;
      if (!(fresh[set.index]![slot.index]! || resume) || !slot.online) continue;
      await restoreBuckets(sets, slot);
      slot.healing = true;
      heals.push({
        id: `drive\0${slot.drive.endpoint}`,
        run: async () => {
          try {
            await monitor.healDrive(set, slot);
          } finally {
            slot.healing = false;
          }
        },
      });
    }
  }
  const scanner = new Scanner({ sets, heals, logger }, opts.scanner === false ? {} : opts.scanner);
  if (opts.scanner !== false) scanner.start();
  return Object.assign(attachHealing(layer, { scanner, heals, drives: driveHeals }), poolDriveView(sets));
}
