/**
 * Errors of the distributed lock. Both are write-quorum failures to the edge (ERR_WRITE_QUORUM → S3 503
 * ServiceUnavailable, a retryable answer): without a lock quorum no node may commit a write (issue 4 "requests
 * fail fast with a clear S3 error"). The classes let callers and logs tell a lock failure from a drive one.
 */
import { InsufficientWriteQuorumError } from '../../storage/index.js';

/** The lock could not be taken: too few lockers granted it before the deadline, or too few are reachable. */
export class LockQuorumError extends InsufficientWriteQuorumError {
  readonly resource: string;
  constructor(resource: string, message: string) {
    super(`namespace lock on "${resource}": ${message}`);
    this.resource = resource;
  }
}

/** A held lock was found gone on more lockers than the quorum tolerates (expired or forced away). */
export class LockLostError extends InsufficientWriteQuorumError {
  readonly resource: string;
  constructor(resource: string, notFound: number, lockers: number) {
    super(`namespace lock on "${resource}" was lost: ${notFound} of ${lockers} lockers no longer hold it`);
    this.resource = resource;
  }
}
