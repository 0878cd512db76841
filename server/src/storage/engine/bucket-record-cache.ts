import type { BucketRecord } from '../format/index.js';

/** How long a merged bucket record is reused at most (a safety net: changes made here invalidate at once). */
const BUCKET_RECORD_TTL_MS = 10_000;

/**
 * Merged bucket records (versioning, policy, encryption… the documents consulted on every request), reused so
 * that a PUT or GET does not read the bucket record file on every drive several times (issue 9: ~16 thread-pool
 * trips per lookup). Sound only where this process is the only writer of the records: every drive local (a
 * single node, any number of pools). A cluster node's peers change records on its drives behind its back, so
 * there the cache is off and every lookup reads the drives, as before.
 *
 * The pending read is cached (so concurrent lookups share it) and a change made through this process drops the
 * entry when it ends, successful or not: a read that started before or during the change is never reused after it.
 */
export class BucketRecordCache {
  readonly #enabled: boolean;
  readonly #entries = new Map<string, { at: number; record: Promise<BucketRecord> }>();

  constructor(enabled: boolean) {
    this.#enabled = enabled;
  }

  /** The cached merged record of `bucket`, or the result of `load` (cached unless it fails). */
  get(bucket: string, load: () => Promise<BucketRecord>): Promise<BucketRecord> {
    if (!this.#enabled) return load();
    const hit = this.#entries.get(bucket);
    if (hit !== undefined && Date.now() - hit.at < BUCKET_RECORD_TTL_MS) return hit.record;
    const entry = { at: Date.now(), record: load() };
    this.#entries.set(bucket, entry);
    entry.record.catch(() => { if (this.#entries.get(bucket) === entry) this.#entries.delete(bucket); });
    return entry.record;
  }

  /** Runs a change of `bucket`'s record (or of the bucket itself), dropping the cached record when it ends. */
  async changing<T>(bucket: string, change: () => Promise<T>): Promise<T> {
    try {
      return await change();
    } finally {
      this.#entries.delete(bucket);
    }
  }
}
