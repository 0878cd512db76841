/**
 * The IAM store (issue 4): users, policies and service accounts persisted as objects of the system bucket,
 * cached in memory on every node, reloaded from storage when a peer says something changed, and fully reloaded
 * every 5 minutes as a safety net. `ready()` stays false until one full load succeeded at read quorum; a failed
 * load is retried every 2 s in the background and never throws out of the store.
 *
 * Every mutation persists first, then updates the cache, then notifies the peers (best effort, bounded by the
 * notifier's deadline). Mutations and reloads run one at a time, so a reload never overwrites a newer change.
 */
import type { PolicyDecision } from '../policy/policy-types.js';
import { encodeRecord, keyOf } from './iam-codec.js';
import type { IamChange } from './iam-codec.js';
import { IamError } from './iam-errors.js';
import { applyRecord, loadSnapshot } from './iam-loader.js';
import type { IamPersistence } from './iam-persistence.js';
import { decideIdentity, emptySnapshot, secretOf } from './iam-snapshot.js';
import type { IamSnapshot, IdentityRequest } from './iam-snapshot.js';
import { IamAdmin } from './iam-admin.js';
import type { IamWrite } from './iam-admin.js';

/** Root credentials: always valid, always allowed, never stored. */
export interface IamRoot {
  readonly accessKey: string;
  readonly secretKey: string;
}

/** Log sink of the store (pino's and StorageLogger's shape). */
export interface IamLogger {
  info(msg: string): void;
  warn(msg: string): void;
}

/** Options of {@link IamStore}. */
export interface IamStoreOptions {
  root: IamRoot;
  persistence: IamPersistence;
  /** Tells the peers what changed (cluster: a POST /svc/peer/iam/reload to each); failures are logged, not thrown. */
  notify?: (changes: readonly IamChange[]) => Promise<void>;
  logger?: IamLogger;
  /** Pause before retrying a failed load (default 2 s). */
  retryMs?: number;
  /** Period of the full safety-net reload (default 5 min). */
  reloadIntervalMs?: number;
  now?: () => Date;
}

const NOOP_LOGGER: IamLogger = { info() {}, warn() {} };

/** Decides signed requests: the port the S3 API authorizes users through. */
export interface IdentityAuthority {
  /** True for the root access key, which every request is allowed for. */
  isRoot(accessKey: string): boolean;
  /** What the identity policies of a (non-root) access key decide for one request; 'deny' for keys that cannot sign. */
  decide(accessKey: string, request: IdentityRequest): PolicyDecision;
}

/** See the module comment. */
export class IamStore extends IamAdmin implements IdentityAuthority {
  readonly #root: IamRoot;
  readonly #persistence: IamPersistence;
  readonly #notify: ((changes: readonly IamChange[]) => Promise<void>) | undefined;
  readonly #log: IamLogger;
  readonly #retryMs: number;
  readonly #reloadMs: number;
  readonly #now: () => Date;
  #snapshot: IamSnapshot = emptySnapshot();
  #loaded = false;
  #started = false;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(opts: IamStoreOptions) {
    super();
    this.#root = opts.root;
    this.#persistence = opts.persistence;
    this.#notify = opts.notify;
    this.#log = opts.logger ?? NOOP_LOGGER;
    this.#retryMs = opts.retryMs ?? 2_000;
    this.#reloadMs = opts.reloadIntervalMs ?? 300_000;
    this.#now = opts.now ?? (() => new Date());
  }

  /** True once a full load from storage at read quorum succeeded (the `iam` detail of /health/ready). */
  ready(): boolean {
    return this.#loaded;
  }

  /**
   * Loads once now and keeps IAM fresh in the background: a failed load is retried every `retryMs`, a successful
   * one repeats every `reloadIntervalMs`. Resolves after the first attempt, whatever its outcome; never rejects.
   */
  async start(): Promise<void> {
    if (this.#started || this.#closed) return;
    this.#started = true;
    await this.#cycle();
  }

  /** Stops the background reloads. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  async #cycle(): Promise<void> {
    let ok = false;
    try {
      await this.load();
      ok = true;
    } catch (err) {
      this.#log.warn(`IAM load failed, retrying in ${this.#retryMs} ms: ${(err as Error).message}`);
    }
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => { void this.#cycle(); }, ok ? this.#reloadMs : this.#retryMs);
    this.#timer.unref();
  }

  /** Runs `fn` after every earlier mutation or reload has finished. */
  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Reads every record from storage and replaces the cache; rejects (cache unchanged) when storage fails. */
  load(): Promise<void> {
    return this.#serial(async () => {
      this.#snapshot = await loadSnapshot(this.#persistence, (key, err) => this.#log.warn(`IAM record ${key} skipped: ${err.message}`));
      if (!this.#loaded) this.#log.info(`IAM loaded: ${this.#snapshot.users.size} user(s), ${this.#snapshot.policies.size} policy(ies), ${this.#snapshot.serviceAccounts.size} service account(s), ${this.#snapshot.groups.size} group(s)`);
      this.#loaded = true;
    });
  }

  /**
   * A peer's reload request: the named records only, or everything when `changes` is absent or the cache was
   * never loaded (a partial reload cannot make an unloaded cache complete).
   */
  async reload(changes?: readonly IamChange[]): Promise<void> {
    if (changes === undefined || !this.#loaded) return this.load();
    return this.#serial(async () => {
      const datas = await Promise.all(changes.map((c) => this.#persistence.get(keyOf(c))));
      changes.forEach((c, i) => {
        try {
          applyRecord(this.#snapshot, c, datas[i]);
        } catch (err) {
          this.#log.warn(`IAM record ${keyOf(c)} skipped: ${(err as Error).message}`);
        }
      });
    });
  }

  /** The secret of `accessKey` for SigV4 (auth/credentials.ts LookupSecret): root, or a user/service account that may sign. */
  async lookupSecret(accessKey: string): Promise<string | undefined> {
    if (accessKey === this.#root.accessKey) return this.#root.secretKey;
    return secretOf(this.#snapshot, this.#root.accessKey, accessKey, this.#now());
  }

  isRoot(accessKey: string): boolean {
    return accessKey === this.#root.accessKey;
  }

  decide(accessKey: string, request: IdentityRequest): PolicyDecision {
    if (this.isRoot(accessKey)) return 'allow';
    return decideIdentity(this.#snapshot, this.#root.accessKey, accessKey, request, this.#now());
  }

  // ---- hooks of IamAdmin (the mutations) ----

  protected override snapshot(): IamSnapshot {
    if (!this.#loaded) throw new IamError('NotReady');
    return this.#snapshot;
  }

  protected override rootAccessKey(): string {
    return this.#root.accessKey;
  }

  protected override now(): Date {
    return this.#now();
  }

  /**
   * Persists `writes` (records to put; undefined removes), then applies them to the cache, then notifies the peers.
   * `check` runs inside the serial section against the current cache, so validation and write cannot interleave
   * with another mutation of this node.
   */
  protected override async commit(check: () => readonly IamWrite[]): Promise<void> {
    const changes = await this.#serial(async () => {
      const writes = check();
      for (const [change, record] of writes) {
        if (record === undefined) await this.#persistence.delete(keyOf(change));
        else await this.#persistence.put(keyOf(change), encodeRecord(record));
      }
      for (const [change, record] of writes) applyRecord(this.#snapshot, change, record === undefined ? undefined : encodeRecord(record));
      return writes.map(([c]) => c);
    });
    if (this.#notify === undefined || changes.length === 0) return;
    try {
      await this.#notify(changes);
    } catch (err) {
      this.#log.warn(`IAM change not announced to peers (they reload within 5 min): ${(err as Error).message}`);
    }
  }
}
