/**
 * Erasure-set sizing and default parity, as MinIO does it (REFERENCE.md facts 3 and 4):
 * valid set sizes are 2..16; take the GCD of the drive counts of the pool's arguments, keep the sizes that
 * divide it and are "symmetric" with every ellipsis range (one divides the other), pick the largest.
 * A single drive is a set of one with no erasure (EC:0).
 */
import { defaultParity } from '../common/index.js';
import { ConfigError } from './config-error.js';

const SET_SIZES = [16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2];

/** The erasure layout of one pool. */
export interface PoolLayout {
  /** Drive paths (or endpoints) grouped per erasure set, in order. */
  sets: string[][];
  setDriveCount: number;
  parity: number;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}


/**
 * Chooses the set size for a pool. `argCounts` is the number of drives each argument expanded to,
 * `rangeSizes` the size of every ellipsis range in the pool's arguments (empty without ellipses).
 */
export function chooseSetSize(argCounts: readonly number[], rangeSizes: readonly number[]): number {
  const total = argCounts.reduce((a, b) => a + b, 0);
  if (total === 1) return 1;
  const common = argCounts.reduce((g, n) => gcd(g, n), 0);
  const symmetric = (size: number) => rangeSizes.every((r) => r % size === 0 || size % r === 0);
  const size = SET_SIZES.find((s) => common % s === 0 && symmetric(s)) ??
    SET_SIZES.find((s) => total % s === 0);
  if (size === undefined) {
    throw new ConfigError(
      `incorrect number of drives: ${total} cannot be split into erasure sets of 2 to 16 drives`,
      'use 1 drive, or a drive count divisible by a set size between 2 and 16 (e.g. 4, 8, 12, 16)',
    );
  }
  return size;
}

/**
 * Parses `EC:N` (SVC_STORAGE_CLASS_STANDARD) and checks 0..setSize/2.
 */
export function parseParity(value: string, setDriveCount: number, name = 'SVC_STORAGE_CLASS_STANDARD'): number {
  const m = /^EC:(\d+)$/.exec(value.trim());
  if (!m) throw new ConfigError(`${name}="${value}" is not valid`, 'expected EC:<parity>, e.g. EC:2');
  const parity = Number(m[1]);
  const max = Math.floor(setDriveCount / 2);
  if (parity > max) {
    throw new ConfigError(
      `${name}=EC:${parity} is too high for erasure sets of ${setDriveCount} drives`,
      `parity must be between 0 and ${max} (half the set size)`,
    );
  }
  if (setDriveCount === 1 && parity !== 0) {
    throw new ConfigError(`${name}=EC:${parity} needs more than one drive`, 'use EC:0 with a single drive');
  }
  return parity;
}

/** Splits a pool's drives into consecutive sets and resolves the parity. */
export function layoutPool(drives: readonly string[], setDriveCount: number, parityOverride?: string): PoolLayout {
  const sets: string[][] = [];
  for (let i = 0; i < drives.length; i += setDriveCount) sets.push(drives.slice(i, i + setDriveCount));
  const parity = parityOverride === undefined ? defaultParity(setDriveCount) : parseParity(parityOverride, setDriveCount);
  return { sets, setDriveCount, parity };
}
