import { DiskFullError } from '../drive/index.js';
import { InsufficientWriteQuorumError, StorageFullError } from './storage-errors.js';

/** A drive's answer that it has no space left: mapped by the drive layer, or a shard write's raw errno. */
function isFull(err: unknown): boolean {
  if (err instanceof DiskFullError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * The error for a write that lost its quorum, given what each drive that failed answered (`undefined` for drives
 * that did not fail): StorageFullError when at least half of the failures are full drives, so the client and the
 * operator read "full" and not "bring drives back online" (which was the answer to a store out of space).
 */
export function writeQuorumLost(message: string, errors: readonly unknown[]): InsufficientWriteQuorumError {
  const failed = errors.filter((e) => e !== undefined);
  const full = failed.filter(isFull).length;
  return full > 0 && full * 2 >= failed.length
    ? new StorageFullError(`${message} (${full} with no space left)`)
    : new InsufficientWriteQuorumError(message);
}
