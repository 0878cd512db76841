import type { Drive } from '../drive/index.js';
import type { ErasureSet } from './erasure-set.js';
import type { DriveState } from './set-drive.js';

/**
 * A read-only view of the deployment's drive slots and pool layout, for reports (issue 5: the admin info
 * report lists every drive with its state, position and healing flag). Positions are 0-based here; the
 * report shows them 1-based.
 */

/** One drive slot as this node's storage sees it. */
export interface DriveSlotView {
  readonly pool: number;
  readonly set: number;
  readonly index: number;
  /** The Drive behind the slot (local or remote), e.g. to ask its diskInfo(). */
  readonly drive: Drive;
  readonly state: DriveState;
  /** UUID the slot's format carries. */
  readonly uuid: string;
  /** True while a full heal onto this drive runs. */
  readonly healing: boolean;
}

/** Shape and quorums of one pool. */
export interface PoolLayoutView {
  readonly sets: number;
  readonly drivesPerSet: number;
  readonly parity: number;
  readonly readQuorum: number;
  readonly writeQuorum: number;
}

/** The drive-view hooks a Storage carries. */
export interface DriveViewHooks {
  /** Every drive slot, pool/set/index order. */
  driveSlots(): DriveSlotView[];
  /** Every pool's layout, in pool order. */
  poolLayouts(): PoolLayoutView[];
}

/** Hooks over one pool's sets. */
export function poolDriveView(sets: readonly ErasureSet[], pool = 0): DriveViewHooks {
  return {
    driveSlots: () => sets.flatMap((s) => s.drives.map((d) => ({
      pool, set: s.index, index: d.index, drive: d.drive, state: d.state, uuid: d.uuid, healing: d.healing,
    }))),
    poolLayouts: () => {
      const first = sets[0]!;
      return [{ sets: sets.length, drivesPerSet: first.n, parity: first.parity, readQuorum: first.readQuorum, writeQuorum: first.writeQuorum }];
    },
  };
}

/** Hooks over several pools, each numbered by its position. */
export function combinedDriveView(pools: readonly DriveViewHooks[]): DriveViewHooks {
  return {
    driveSlots: () => pools.flatMap((p, pool) => p.driveSlots().map((d) => ({ ...d, pool }))),
    poolLayouts: () => pools.flatMap((p) => p.poolLayouts()),
  };
}
