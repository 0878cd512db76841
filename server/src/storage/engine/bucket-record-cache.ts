import type { BucketRecord } from '../format/index.js';

/** How long a merged bucket record is reused at most (a safety net: changes made here invalidate at once). */
const BUCKET_RECORD_TTL_MS = 10_000;

/**
 * Merged bucket records (versioning, policy, encryption… the documents consulted on every request), reused so
 * that a PUT or GET does not read the bucket record file on every drive several times (issue 9: ~16 thread-pool
 * trips per lookup on one node, 16 drive calls — most of them RPCs — on a 4-node cluster). A single node is the
 * only writer of its records. In a cluster the node that changes a record tells the others (`onChange`: the peer
 * call /svc/peer/bucket/changed, which calls `forget`) before the change is answered, so a client that changed a
 * bucket through one node sees the change through any other; a node that cannot be told (down, partitioned)
 * rereads within the 10 s TTL at the latest — as MinIO, whose peers also learn bucket metadata changes by a
 * notification.
 *
 * The pending read is cached (so concurrent lookups share it) and a change made through this process drops the
 * entry when it ends, successful or not: a read that started before or during the change is never reused after it.
 */
export class BucketRecordCache {
  readonly #enabled: boolean;
  readonly #onChange: ((bucket: string) => Promise<void>) | undefined;
  readonly #entries = new Map<string, { at: number; record: Promise<BucketRecord> }>();

  /** `onChange` runs after every change made through this cache (the cluster's peer notification). */
  constructor(enabled: boolean, onChange?: (bucket: string) => Promise<void>) {
    this.#enabled = enabled;
    this.#onChange = onChange;
  }

  /** Drops the cached record of `bucket` (a peer changed it). */
  forget(bucket: string): void {
    this.#entries.delete(bucket);
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
      await this.#onChange?.(bucket).catch(() => undefined);
    }
  }
}
