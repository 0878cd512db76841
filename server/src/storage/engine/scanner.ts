import { setTimeout as sleep } from 'node:timers/promises';
import type { ErasureSet, QuorumRecord, StorageLogger } from './erasure-set.js';
import type { HealOutcome, HealQueue } from './heal-queue.js';
import { candidateKeys, setBuckets, shardsMissing } from './scan-checks.js';
import { InvalidStorageConfigError, ObjectNotFoundError } from './storage-errors.js';
import { hash32 } from './object-name.js';

/**
 * Background scanner (REFERENCE.md fact 7b): walks every bucket of every erasure set in cycles and
 * checks a sample of the objects on ALL drives of their set, queueing a heal (the MRF heal queue, so
 * the work is de-duplicated with heals queued by reads) when an online drive lacks the object's
 * record, holds another (outdated or undecodable) one, or lacks a shard file of it, or has it short.
 * Deep mode instead queues a deep heal of each sampled object, which reads every shard and verifies
 * its bitrot checksums.
 *
 * Sampling: object `key` is checked in cycle `c` when (hash(bucket/key) + c) % sampleEvery == 0, so
 * each object is checked exactly once every `sampleEvery` consecutive cycles, spread evenly over
 * them. MinIO checks about 1 object in 1024 per cycle with cycles running back to back; with our
 * default of a cycle per minute, 1 in 16 checks every object about every 16 minutes on an idle
 * node, which keeps the extra metadata reads small while bounding how long damage can sit unseen.
 * The cycle counter starts at a random value so that frequent restarts do not check the same slice.
 *
 * Throttling: one object at a time, a pause after each checked object and after every
 * {@link WALK_PAUSE_EVERY} keys walked past, a pause between cycles, and the scanner waits for the
 * heal queue when it holds {@link MAX_BACKLOG} tasks. Heals run under the object's lock, so S3 requests
 * are never blocked for longer than one object's heal. Errors are counted and logged, never thrown
 * from the background loop.
 */

/** Options of the background scanner. */
export interface ScannerOptions {
  /** Pause between the end of a cycle and the start of the next, and before the first (default 60 000 ms, as MinIO's 1 min). */
  intervalMs?: number;
  /** Each object is checked once every `sampleEvery` cycles (1 = every cycle; default 16). */
  sampleEvery?: number;
  /** Pause after each checked object (default 10 ms). */
  pauseMs?: number;
  /** Deep mode: verify the bitrot checksums of every shard of sampled objects (reads all their data; default false). */
  deep?: boolean;
}

/** Scanner counters (JSON-serializable; times are ISO 8601 strings). */
export interface ScannerStatus {
  /** False when the background loop is off (`scanner: false`); cycles can still be run on demand. */
  enabled: boolean;
  /** True while a cycle runs. */
  running: boolean;
  /** Cycles started since the storage was opened. */
  cycle: number;
  cyclesCompleted: number;
  lastCycleStarted?: string;
  lastCycleEnded?: string;
  /** Bucket being walked by the running cycle. */
  currentBucket?: string;
  /** Objects checked on every drive in the running (or last) cycle. */
  objectsScannedThisCycle: number;
  /** Objects checked on every drive since opening. */
  objectsScanned: number;
  /** Heals queued by the scanner since opening. */
  healsQueued: number;
  /** Heals queued by the scanner that rewrote at least one drive. */
  objectsHealed: number;
  /** Heals queued by the scanner that failed. */
  healFailures: number;
  /** Objects or buckets the scanner could not check (e.g. no read quorum). */
  errors: number;
  sampleEvery: number;
  intervalMs: number;
  pauseMs: number;
  deep: boolean;
}

/** What one cycle did (heals it queued may still be running when it resolves). */
export interface ScanCycleResult {
  cycle: number;
  /** Erasure sets walked (see {@link ScanCycleOptions.allSets}). */
  setsScanned: number;
  objectsScanned: number;
  healsQueued: number;
  errors: number;
  /** False when the storage was closed during the cycle. */
  completed: boolean;
}

/** Options of one cycle run on demand. */
export interface ScanCycleOptions {
  /** Overrides the scanner's deep mode for this cycle. */
  deep?: boolean;
  /** Overrides the sample rate for this cycle (1 checks every object). */
  sampleEvery?: number;
  /** Also walks the sets this node does not own (see {@link ownsSet}); default false. */
  allSets?: boolean;
}

/**
 * True when this node scans `set`: it holds the set's first online drive. Every node opens every drive
 * (remote ones over RPC), so without this each node would scan every set; MinIO elects one scanner
 * leader with a cluster lock, this needs no coordination: the nodes agree on the owner while they agree
 * on which drives are online, and when the owner's drives go offline the next node takes over.
 */
export function ownsSet(set: ErasureSet): boolean {
  const first = set.drives.find((d) => d.online);
  return first !== undefined && first.drive.isLocal;
}

/** The scanner waits for the heal queue to empty when it holds this many tasks (reads' heals are not stuck behind a long backlog). */
const MAX_BACKLOG = 100;
/** Keys walked past without a check between two pauses. */
const WALK_PAUSE_EVERY = 32;

/** True when `bucket/key` is checked in cycle `cycle`. */
export function sampledIn(bucket: string, key: string, cycle: number, sampleEvery: number): boolean {
  return (hash32(`${bucket}/${key}`) + cycle) % sampleEvery === 0;
}

function intOption(v: unknown, dflt: number, name: string, min: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
    throw new InvalidStorageConfigError(`scanner ${name} must be an integer >= ${min}, got ${String(v)}`);
  }
  return v;
}

/** Validates scanner options and fills in the defaults; InvalidStorageConfigError names a bad value. */
export function scannerSettings(opts: ScannerOptions = {}): Required<ScannerOptions> {
  if (opts.deep !== undefined && typeof opts.deep !== 'boolean') throw new InvalidStorageConfigError('scanner deep must be a boolean');
  return {
    intervalMs: intOption(opts.intervalMs, 60_000, 'intervalMs', 0),
    sampleEvery: intOption(opts.sampleEvery, 16, 'sampleEvery', 1),
    pauseMs: intOption(opts.pauseMs, 10, 'pauseMs', 0),
    deep: opts.deep ?? false,
  };
}

/** The background scanner of one storage (see the file comment). */
export class Scanner {
  readonly #sets: readonly ErasureSet[];
  readonly #heals: HealQueue;
  readonly #logger: StorageLogger;
  readonly #opts: Required<ScannerOptions>;
  readonly #abort = new AbortController();
  /** Resolves on close (ends waits that the abort signal does not reach). */
  readonly #closing = new Promise<void>((resolve) => { this.#abort.signal.addEventListener('abort', () => resolve(), { once: true }); });
  /** Random start of the sampling cycle counter (see the file comment). */
  readonly #offset = Math.floor(Math.random() * 0x10000);
  #enabled = false;
  #closed = false;
  #current: Promise<ScanCycleResult> | undefined;
  #loop: Promise<void> | undefined;
  readonly #st = {
    cycle: 0, cyclesCompleted: 0, objectsScannedThisCycle: 0, objectsScanned: 0, healsQueued: 0, objectsHealed: 0, healFailures: 0, errors: 0,
  };
  #lastStarted: string | undefined;
  #lastEnded: string | undefined;
  #bucket: string | undefined;

  constructor(deps: { sets: readonly ErasureSet[]; heals: HealQueue; logger: StorageLogger }, opts: ScannerOptions = {}) {
    this.#sets = deps.sets;
    this.#heals = deps.heals;
    this.#logger = deps.logger;
    this.#opts = scannerSettings(opts);
  }

  /** Starts the background loop: a cycle after every `intervalMs` of rest. */
  start(): void {
    if (this.#enabled || this.#closed) return;
    this.#enabled = true;
    this.#loop = (async () => {
      while (!this.#closed) {
        if (!(await this.#rest(this.#opts.intervalMs, false))) return;
        try {
          await this.runCycle();
        } catch (err) {
          this.#logger.error(`scanner cycle failed: ${(err as Error).message}`);
        }
      }
    })();
  }

  /** Runs one full cycle now (after the running one, if any); resolves when the walk is done. */
  runCycle(opts: ScanCycleOptions = {}): Promise<ScanCycleResult> {
    const sampleEvery = intOption(opts.sampleEvery, this.#opts.sampleEvery, 'sampleEvery', 1);
    for (const flag of ['deep', 'allSets'] as const) {
      if (opts[flag] !== undefined && typeof opts[flag] !== 'boolean') throw new InvalidStorageConfigError(`scan cycle ${flag} must be a boolean`);
    }
    const prev = this.#current ?? Promise.resolve();
    const next = prev.catch(() => undefined).then(() => this.#cycle(opts.deep ?? this.#opts.deep, sampleEvery, opts.allSets === true));
    this.#current = next;
    void next.finally(() => { if (this.#current === next) this.#current = undefined; }).catch(() => undefined);
    return next;
  }

  /** Counters and settings now. */
  status(): ScannerStatus {
    const s: ScannerStatus = {
      enabled: this.#enabled && !this.#closed, running: this.#current !== undefined, ...this.#st,
      sampleEvery: this.#opts.sampleEvery, intervalMs: this.#opts.intervalMs, pauseMs: this.#opts.pauseMs, deep: this.#opts.deep,
    };
    if (this.#lastStarted !== undefined) s.lastCycleStarted = this.#lastStarted;
    if (this.#lastEnded !== undefined) s.lastCycleEnded = this.#lastEnded;
    if (this.#bucket !== undefined) s.currentBucket = this.#bucket;
    return s;
  }

  /** Stops the loop and the running cycle (at its next object); resolves when they have stopped. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#abort.abort();
    await Promise.all([this.#loop, this.#current?.catch(() => undefined)]);
  }

  /**
   * Sleeps `ms` unless closed meanwhile; false when closed. Only the rest between cycles lets the process
   * exit (`ref` false): a pause inside a cycle is awaited by whoever runs the cycle.
   */
  async #rest(ms: number, ref = true): Promise<boolean> {
    if (this.#closed) return false;
    if (ms <= 0) return true;
    try {
      await sleep(ms, undefined, { signal: this.#abort.signal, ref });
      return true;
    } catch {
      return false;
    }
  }

  async #cycle(deep: boolean, sampleEvery: number, allSets: boolean): Promise<ScanCycleResult> {
    const cycle = ++this.#st.cycle;
    const result: ScanCycleResult = { cycle, setsScanned: 0, objectsScanned: 0, healsQueued: 0, errors: 0, completed: false };
    if (this.#closed) return result;
    this.#lastStarted = new Date().toISOString();
    this.#st.objectsScannedThisCycle = 0;
    let firstError: string | undefined;
    const fail = (what: string, err: unknown): void => {
      result.errors++;
      this.#st.errors++;
      firstError ??= `${what}: ${(err as Error).message}`;
    };
    try {
      for (const set of this.#sets) {
        if (this.#closed) return result;
        if (!allSets && !ownsSet(set)) continue;
        result.setsScanned++;
        let buckets: string[];
        try {
          buckets = await setBuckets(set);
        } catch (err) {
          fail(`set ${set.index}`, err);
          continue;
        }
        for (const bucket of buckets) {
          this.#bucket = bucket;
          let walked = 0;
          try {
            for await (const key of candidateKeys(set, bucket, '')) {
              if (this.#closed) return result;
              if (!sampledIn(bucket, key, this.#offset + cycle, sampleEvery)) {
                if (++walked % WALK_PAUSE_EVERY === 0 && !(await this.#rest(this.#opts.pauseMs))) return result;
                continue;
              }
              try {
                await this.#check(set, bucket, key, deep, result);
              } catch (err) {
                fail(`${bucket}/${key}`, err);
              }
              if (!(await this.#rest(this.#opts.pauseMs))) return result;
            }
          } catch (err) {
            fail(`bucket ${bucket} of set ${set.index}`, err);
          }
        }
      }
      result.completed = true;
      this.#st.cyclesCompleted++;
      return result;
    } finally {
      this.#bucket = undefined;
      this.#lastEnded = new Date().toISOString();
      if (firstError !== undefined) this.#logger.warn(`scanner cycle ${cycle}: ${result.errors} object(s) or bucket(s) not checked, first: ${firstError}`);
      if (result.healsQueued > 0) this.#logger.info(`scanner cycle ${cycle}: ${result.objectsScanned} object(s) checked, ${result.healsQueued} heal(s) queued`);
    }
  }

  /** Checks one candidate key on every drive of its set and queues a heal when a drive needs one. */
  async #check(set: ErasureSet, bucket: string, key: string, deep: boolean, result: ScanCycleResult): Promise<void> {
    const results = await set.readMetas(bucket, key);
    // No drive holds a record: a directory of deeper keys only.
    if (!results.some((r) => r.ok)) return;
    result.objectsScanned++;
    this.#st.objectsScanned++;
    this.#st.objectsScannedThisCycle++;
    let q: QuorumRecord;
    try {
      q = set.pickQuorum(bucket, key, results);
    } catch (err) {
      // A record on too few drives to be readable is a leftover of a failed write: the heal removes it.
      if (err instanceof ObjectNotFoundError) await this.#queue(set, bucket, key, false, result);
      else throw err;
      return;
    }
    if (deep) {
      await this.#queue(set, bucket, key, true, result);
      return;
    }
    // Drives under a full heal are left to it (it walks every object of the set).
    const check = set.drives.map((d) => d.online && !d.healing);
    if (check.some((c, i) => c && q.perDrive[i] === null)) {
      await this.#queue(set, bucket, key, false, result);
      return;
    }
    if (await shardsMissing(set, bucket, q, check.map((c, i) => c && q.perDrive[i] !== null))) {
      // Only a deep heal rebuilds the shards of a drive whose record is right.
      await this.#queue(set, bucket, key, true, result);
    }
  }

  async #queue(set: ErasureSet, bucket: string, key: string, deep: boolean, result: ScanCycleResult): Promise<void> {
    if (this.#heals.pending >= MAX_BACKLOG) {
      await Promise.race([this.#heals.drain(), this.#closing]);
      if (this.#closed) return;
    }
    result.healsQueued++;
    this.#st.healsQueued++;
    this.#heals.queueObject(set, bucket, key, deep, (o: HealOutcome) => {
      if (!o.ok) this.#st.healFailures++;
      else if (o.result.healed.length > 0) this.#st.objectsHealed++;
    });
  }
}
