import { UnformattedDiskError, VolumeExistsError } from '../drive/index.js';
import { decodeFormat, driveFormat, encodeFormat } from '../format/index.js';
import type { DriveFormat } from '../format/index.js';
import type { ErasureSet, StorageLogger } from './erasure-set.js';
import type { DriveChecker } from './erasure-sets.js';
import type { DriveHealTracker } from './drive-heal-tracker.js';
import { healObject } from './heal.js';
import type { HealQueue } from './heal-queue.js';
import { listSet } from './listing.js';
import type { SetDrive } from './set-drive.js';

/** How soon a drive taken offline by a failed call is checked again (DriveMonitor.driveFault). */
const FAULT_RECHECK_MS = 1000;

/**
 * Re-detects drives (REFERENCE.md fact 7c, MinIO checks every 10 s; we default to 3 s and also
 * check on demand from health()). A slot's format is re-read:
 *  - same deployment and UUID → online (if it was down: recreate missing buckets, then a
 *    background heal of the whole set onto it, since it may have missed writes);
 *  - no format but a root directory (wiped or replaced drive) → formatted with the slot's UUID
 *    and fully healed (it counts as online and "healing" meanwhile);
 *  - missing root, I/O errors → offline; another deployment or UUID → refused (logged);
 *  - same format but another root directory than at the last check (DiskInfo.id: e.g. an old copy of the drive moved
 *    into its place between two checks) → as a drive that was down: it may lack what was written since the copy,
 *    so a heal of the whole set onto it (logged).
 */
export class DriveMonitor implements DriveChecker {
  readonly #sets: readonly ErasureSet[];
  readonly #reference: DriveFormat;
  readonly #heals: HealQueue;
  readonly #logger: StorageLogger;
  readonly #timer: NodeJS.Timeout;
  readonly #progress: DriveHealTracker | undefined;
  readonly #tempGraceMs: number;
  readonly #faultRecheckMs: number;
  #recheck: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(deps: {
    sets: readonly ErasureSet[]; reference: DriveFormat; heals: HealQueue; logger: StorageLogger; intervalMs: number;
    /** Records the progress of full-drive heals (Storage.healStatus). */
    progress?: DriveHealTracker;
    /** Temp entries younger than this survive the cleaning of a drive that comes back (OpenStorageOptions.tempGraceMs). */
    tempGraceMs?: number;
    /** How soon a drive taken offline by a failed call is checked again (driveFault; default 1000 ms, or the interval if shorter). */
    faultRecheckMs?: number;
  }) {
    this.#sets = deps.sets;
    this.#tempGraceMs = deps.tempGraceMs ?? 0;
    this.#faultRecheckMs = Math.min(deps.faultRecheckMs ?? FAULT_RECHECK_MS, deps.intervalMs);
    this.#progress = deps.progress;
    this.#reference = deps.reference;
    this.#heals = deps.heals;
    this.#logger = deps.logger;
    this.#timer = setInterval(() => { void this.checkNow(); }, deps.intervalMs);
    this.#timer.unref();
  }

  /**
   * A call on `slot` failed with an offline-class error: stop using it until it checks out again, which is checked
   * soon (faultRecheckMs), not only at the next interval. One failed call may be a peer that was slow for a moment
   * (an RPC deadline on a loaded machine), and with exactly a read quorum left, every read of the set would fail
   * until the drive is back: the pools test saw a GET answer "read quorum lost" through all of the SDK's retries.
   */
  driveFault(slot: SetDrive, err: unknown): void {
    if (slot.state !== 'online') return;
    slot.state = 'offline';
    this.#logger.warn(`drive ${slot.drive.endpoint} went offline: ${(err as Error).message}`);
    if (this.#recheck !== undefined || this.#stopped) return;
    this.#recheck = setTimeout(() => {
      this.#recheck = undefined;
      void this.checkNow();
    }, this.#faultRecheckMs);
    this.#recheck.unref();
  }

  checkNow(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#running ??= (async () => {
      try {
        const unformatted: [ErasureSet, SetDrive][] = [];
        await Promise.all(this.#sets.flatMap((set) => set.drives.map(async (slot) => {
          if ((await this.#check(set, slot)) === 'unformatted') unformatted.push([set, slot]);
        })));
        for (const [set, slot] of unformatted) {
          // As MinIO's HealFormat: only format an empty drive while the set still has read quorum
          // of formatted drives; otherwise the deployment may just be unmounted, or its data lost.
          if (set.onlineCount() >= set.readQuorum) await this.#format(set, slot);
        }
      } finally {
        this.#running = undefined;
      }
    })();
    return this.#running;
  }

  /** Heals every object of `set` onto `slot` (full-drive heal). */
  healDrive(set: ErasureSet, slot: SetDrive): Promise<void> {
    return healSet(set, slot, this.#progress);
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
    clearTimeout(this.#recheck);
  }

  async #check(set: ErasureSet, slot: SetDrive): Promise<'ok' | 'unformatted' | 'down'> {
    const wasOnline = slot.online;
    try {
      const f = decodeFormat(await slot.drive.readFormat());
      if (f.deploymentId !== this.#reference.deploymentId || f.thisDrive !== slot.uuid) {
        if (slot.state !== 'mismatched') {
          this.#logger.error(`drive ${slot.drive.endpoint} carries deployment ${f.deploymentId} drive ${f.thisDrive}, expected ${this.#reference.deploymentId} drive ${slot.uuid}: not used`);
        }
        slot.state = 'mismatched';
        slot.rootId = undefined;
        return 'down';
      }
      slot.unhealed = f.healing !== undefined;
      const { id } = await slot.drive.diskInfo();
      const replaced = wasOnline && slot.rootId !== undefined && id !== undefined && id !== slot.rootId;
      slot.rootId = id;
      if (replaced) this.#logger.warn(`drive ${slot.drive.endpoint} is another directory than before, with the same format: healing it`);
      if (!wasOnline || replaced) await this.#cameBack(set, slot, false);
      return 'ok';
    } catch (err) {
      slot.rootId = undefined;
      if (wasOnline) this.#logger.warn(`drive ${slot.drive.endpoint} is offline: ${(err as Error).message}`);
      slot.state = err instanceof UnformattedDiskError ? 'unformatted' : 'offline';
      return err instanceof UnformattedDiskError ? 'unformatted' : 'down';
    }
  }

  async #format(set: ErasureSet, slot: SetDrive): Promise<void> {
    try {
      await slot.drive.writeFormat(encodeFormat(driveFormat(this.#reference, slot.uuid, true)));
      slot.unhealed = true;
      this.#logger.warn(`drive ${slot.drive.endpoint} was empty: formatted as ${slot.uuid}, healing`);
      await this.#cameBack(set, slot, true);
    } catch (err) {
      this.#logger.warn(`drive ${slot.drive.endpoint} could not be formatted: ${(err as Error).message}`);
    }
  }

  async #cameBack(set: ErasureSet, slot: SetDrive, fresh: boolean): Promise<void> {
    // A remote drive's temp area is its owner's to clean (other nodes may be writing there).
    if (slot.drive.isLocal) await slot.drive.cleanTemp(this.#tempGraceMs);
    await restoreBuckets(this.#sets, slot);
    slot.state = 'online';
    if (!fresh) this.#logger.info(`drive ${slot.drive.endpoint} is back online, healing`);
    slot.healing = true;
    this.#heals.push({
      id: `drive\0${slot.drive.endpoint}`,
      run: async () => {
        try {
          await healSet(set, slot, this.#progress);
        } finally {
          slot.healing = false;
        }
      },
    });
  }
}

/** After a full heal that missed nothing: the drive's format no longer says it lacks objects (DriveFormat.healing). */
async function clearHealingMark(slot: SetDrive): Promise<void> {
  const f = decodeFormat(await slot.drive.readFormat());
  if (f.healing !== undefined) {
    delete f.healing;
    await slot.drive.writeFormat(encodeFormat(f));
  }
  slot.unhealed = false;
}

/** Recreates on `slot` the buckets that a majority of the other online drives hold. */
export async function restoreBuckets(sets: readonly ErasureSet[], slot: SetDrive): Promise<void> {
  const counts = new Map<string, { n: number; meta: Buffer }>();
  let answered = 0;
  for (const set of sets) {
    for (const other of set.drives) {
      if (other === slot || !other.online) continue;
      try {
        for (const v of await other.drive.listVolumes()) {
          const c = counts.get(v.name) ?? { n: 0, meta: v.meta };
          c.n++;
          counts.set(v.name, c);
        }
        answered++;
      } catch { /* offline */ }
    }
  }
  const have = new Set((await slot.drive.listVolumes()).map((v) => v.name));
  for (const [name, c] of counts) {
    if (have.has(name) || c.n * 2 < answered) continue;
    try {
      await slot.drive.makeVolume(name, c.meta);
    } catch (err) {
      if (!(err instanceof VolumeExistsError)) throw err;
    }
  }
}

/**
 * Heals every object of every bucket of `set` onto `slot` (metadata check; shards are rebuilt where missing).
 * An object whose heal fails is counted and logged and the walk goes on (as MinIO's drive healing counts
 * failed items); the walk stops when the drive goes offline or the set cannot be listed.
 */
async function healSet(set: ErasureSet, slot: SetDrive, tracker: DriveHealTracker | undefined): Promise<void> {
  if (!slot.online) return;
  const progress = tracker?.start(slot);
  let failed = 0;
  try {
    const buckets = await slot.drive.listVolumes();
    for (const b of buckets) {
      progress?.bucket(b.name);
      for await (const e of listSet(set, b.name, '', '', false)) {
        if (!slot.online) {
          progress?.finish('the drive went offline');
          return;
        }
        if (!('record' in e)) continue;
        try {
          const result = await healObject(set, b.name, e.key, false);
          progress?.healed(result, slot.index);
        } catch (err) {
          failed++;
          progress?.failed();
          set.logger.warn(`heal of ${b.name}/${e.key} onto ${slot.drive.endpoint} failed: ${(err as Error).message}`);
        }
      }
    }
    if (failed === 0) await clearHealingMark(slot);
    progress?.finish();
  } catch (err) {
    progress?.finish((err as Error).message);
    throw err;
  }
}
