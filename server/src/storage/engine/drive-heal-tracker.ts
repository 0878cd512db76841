import type { ErasureSet } from './erasure-set.js';
import type { HealResult } from './heal.js';
import type { SetDrive } from './set-drive.js';

/**
 * Progress of full-drive heals (REFERENCE.md fact 7c: a new, replaced or returning drive is healed
 * object by object). MinIO keeps this in a `.healing.bin` tracker on the drive; here it lives in
 * memory and is reported through Storage.healStatus() (the admin API reads it). A restart during a
 * heal restarts the heal of that drive from the beginning.
 */

/** Phase of a full-drive heal. */
export type DriveHealState = 'queued' | 'healing' | 'done' | 'failed';

/** Progress of one full-drive heal (JSON-serializable; times are ISO 8601 strings). */
export interface DriveHealStatus {
  endpoint: string;
  /** Pool of the drive (0-based), when the storage has several pools. */
  pool?: number;
  /** Position of the drive: erasure set and index in it (0-based). */
  set: number;
  index: number;
  state: DriveHealState;
  /** Objects looked at so far (every object of every bucket of the drive's set). */
  objectsScanned: number;
  /** Objects rewritten onto this drive. */
  objectsHealed: number;
  /** Objects whose heal threw (logged; the scanner or a later read retries them). */
  objectsFailed: number;
  /** Shard bytes rebuilt onto this drive. */
  bytesHealed: number;
  /** Objects of the set: known once the walk has finished (the walk is not counted ahead). */
  objectsTotal?: number;
  /** Bucket being walked. */
  currentBucket?: string;
  started?: string;
  finished?: string;
  /** Why the heal stopped early (state `failed`). */
  error?: string;
}

/** One running or finished full-drive heal, updated by the walk (drive-monitor.ts healSet). */
export class DriveHealProgress {
  readonly status: DriveHealStatus;

  constructor(slot: SetDrive) {
    this.status = {
      endpoint: slot.drive.endpoint, set: slot.setIndex, index: slot.index, state: 'healing',
      objectsScanned: 0, objectsHealed: 0, objectsFailed: 0, bytesHealed: 0, started: new Date().toISOString(),
    };
  }

  bucket(name: string): void {
    this.status.currentBucket = name;
  }

  /** Records the heal of one object; `slotIndex` is the healed drive's index in its set. */
  healed(result: HealResult, slotIndex: number): void {
    this.status.objectsScanned++;
    if (result.healed.includes(slotIndex)) {
      this.status.objectsHealed++;
      this.status.bytesHealed += Math.round(result.bytes / result.healed.length);
    }
  }

  failed(): void {
    this.status.objectsScanned++;
    this.status.objectsFailed++;
  }

  finish(error?: string): void {
    this.status.state = error === undefined ? 'done' : 'failed';
    if (error === undefined) this.status.objectsTotal = this.status.objectsScanned;
    else this.status.error = error;
    delete this.status.currentBucket;
    this.status.finished = new Date().toISOString();
  }
}

/** The full-drive heals of one storage: the latest heal of each drive, plus drives waiting for theirs. */
export class DriveHealTracker {
  readonly #sets: readonly ErasureSet[];
  readonly #byEndpoint = new Map<string, DriveHealProgress>();

  constructor(sets: readonly ErasureSet[]) {
    this.#sets = sets;
  }

  /** Starts tracking a heal of `slot` (replaces the record of an earlier heal of the same drive). */
  start(slot: SetDrive): DriveHealProgress {
    const p = new DriveHealProgress(slot);
    this.#byEndpoint.set(slot.drive.endpoint, p);
    return p;
  }

  /** Heals in set/index order; a drive flagged as healing whose heal has not started yet shows as `queued`. */
  status(): DriveHealStatus[] {
    const out: DriveHealStatus[] = [];
    for (const set of this.#sets) {
      for (const slot of set.drives) {
        const p = this.#byEndpoint.get(slot.drive.endpoint);
        const waiting = slot.healing && (p === undefined || p.status.state !== 'healing');
        if (waiting) {
          out.push({ endpoint: slot.drive.endpoint, set: set.index, index: slot.index, state: 'queued', objectsScanned: 0, objectsHealed: 0, objectsFailed: 0, bytesHealed: 0 });
        } else if (p !== undefined) {
          out.push({ ...p.status });
        }
      }
    }
    return out;
  }
}
