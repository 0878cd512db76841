/**
 * The fault run's recorder: every operation the clients attempted, with its time window, as a Jepsen history.
 * A write whose outcome is unknown (it failed, timed out, or its connection died) may or may not have taken
 * effect, at any time after it started; an acknowledged one took effect inside its window.
 */
import { performance } from 'node:perf_hooks';

/** The kinds of writes the clients do. */
export type WriteKind = 'put' | 'multipart' | 'delete';

/** One attempted write (PUT, completed multipart upload or DELETE) of one key. */
export interface WriteOp {
  client: number;
  key: string;
  kind: WriteKind;
  /** SHA-256 (hex) of the content written; null for a delete. */
  sha: string | null;
  size: number;
  /** When the first attempt was sent (ms, monotonic clock). */
  start: number;
  /** When the acknowledgement arrived; undefined while unknown. */
  end: number | undefined;
  status: 'ok' | 'unknown';
}

/** One successful read during the run (a 404 reads as null). */
export interface ReadOp {
  client: number;
  key: string;
  sha: string | null;
  start: number;
  end: number;
}

/** Everything the clients did, in the order they started it. */
export class History {
  readonly writes: WriteOp[] = [];
  readonly reads: ReadOp[] = [];
  /** Reads that failed even after their retries (not part of the check: they returned nothing). */
  failedReads = 0;

  /** The monotonic clock the windows are measured on. */
  now(): number {
    return performance.now();
  }

  /** Records a write as attempted (unknown) before its first byte is sent; settle it with {@link ack}. */
  begin(client: number, key: string, kind: WriteKind, sha: string | null, size: number): WriteOp {
    const op: WriteOp = { client, key, kind, sha, size, start: this.now(), end: undefined, status: 'unknown' };
    this.writes.push(op);
    return op;
  }

  /** Marks a write acknowledged now. */
  ack(op: WriteOp): void {
    op.end = this.now();
    op.status = 'ok';
  }

  /** Records a completed read. */
  read(client: number, key: string, sha: string | null, start: number): void {
    this.reads.push({ client, key, sha, start, end: this.now() });
  }
}
