import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';

/**
 * Which keys of a drive this process changed lately, so that a listing can tell that a key it read before is
 * unchanged without reading it again (Drive.readChildren's stamps; issue 9: LIST of 10,000 keys).
 *
 * Every change to a key's state on a local drive goes through LocalDrive (renameData, deleteObject), whether it
 * comes from this node or, in a cluster, from another node through the storage RPC: the drive's owner sees them all.
 * A change is recorded once it is on disk, under the next number of a per-drive sequence; a read takes the sequence
 * number BEFORE it reads, and its answer stays valid while no change to the key is recorded after that number. A
 * change that lands while the read runs is recorded after it, so it invalidates the answer too.
 *
 * What this cannot see — files changed by hand under a running server — is bounded in time: a stamp older than
 * {@link STAMP_MAX_AGE_MS} is never honoured, so a listing shows such a change at the latest that much later
 * (GET and the scanner read the files themselves every time).
 */

/** Longest time a stamp vouches for a key (see above). */
export const STAMP_MAX_AGE_MS = 60_000;
/**
 * Changes remembered per drive (~80 bytes each: ~1.3 MiB a drive, ~21 MiB for a node of 16 drives); older ones
 * raise the floor below which no stamp is honoured, so a listing after more writes than that reads again.
 */
export const MAX_CHANGES = 16_384;
/** What is left after forgetting (see touch). */
const EVICT_TO = MAX_CHANGES - MAX_CHANGES / 4;

export class ChangeLog {
  /** Distinguishes this process's numbers from any earlier process's (stamps travel over the RPC). */
  readonly #epoch = randomBytes(6).toString('hex');
  #seq = 0;
  /** Every change numbered at or below this may be forgotten: stamps taken before it are not honoured. */
  #floor = 0;
  /** Key id → number of its latest change. */
  readonly #changed = new Map<string, number>();
  /**
   * Volume → number of its latest change (forgotten with the rest by touchAll, which a bucket made or removed
   * calls). A stamp taken after it vouches for every key of the volume without building the key's id: a listing of
   * 10,000 keys asks 20,000 times (each key on the two drives of four a batch asks; issue 9: LIST of 10,000 keys).
   */
  readonly #volumeChanged = new Map<string, number>();
  /**
   * Every change (key id and number) in order, from `#head` on, so the oldest are forgotten first. Set-only on the
   * map, with this list for the order: moving a key to the map's end (delete, then set) costs V8 time that grows
   * with the map's size, ~10-20 µs per change once it held 16,384 keys (issue 9: every 4 KiB PUT touches 4 drives).
   * Entries superseded by a later change of the same key are skipped when reached, and dropped by {@link #compact}.
   */
  #order: string[] = [];
  #orderSeq: number[] = [];
  #head = 0;
  #lastStamp = '';
  #lastParsed: { seq: number; at: number } | null = null;

  /** A stamp for reads starting now. */
  stamp(): string {
    return `${this.#epoch}:${this.#seq}:${Date.now()}`;
  }

  /** The number of the latest change recorded: for {@link unchangedSince}, within this process. */
  mark(): number {
    return this.#seq;
  }

  /**
   * True when no change of `key` in `volume` was recorded after `mark` (from {@link mark}) and none of those may have
   * been forgotten: what {@link unchanged} answers for a stamp, without making and parsing one (a commit asks it of its
   * own key: LocalDrive.renameData).
   */
  unchangedSince(volume: string, key: string, mark: number): boolean {
    if (mark < this.#floor) return false;
    return (this.#volumeChanged.get(volume) ?? 0) <= mark || (this.#changed.get(`${volume}/${key}`) ?? 0) <= mark;
  }

  /** Records a change of `key` in `volume` (and of its ancestors: their deeper keys changed). Call once on disk. */
  touch(volume: string, key: string): void {
    const n = ++this.#seq;
    this.#volumeChanged.set(volume, n);
    let at = key.length;
    for (;;) {
      const id = `${volume}/${key.slice(0, at)}`;
      this.#changed.set(id, n);
      this.#order.push(id);
      this.#orderSeq.push(n);
      at = key.lastIndexOf('/', at - 1);
      if (at <= 0) break;
    }
    if (this.#changed.size > MAX_CHANGES) {
      // The oldest quarter goes at once (amortized: one pass per MAX_CHANGES / 4 changes).
      while (this.#changed.size > EVICT_TO && this.#head < this.#order.length) {
        const id = this.#order[this.#head]!;
        const seq = this.#orderSeq[this.#head++]!;
        if (this.#changed.get(id) !== seq) continue;
        this.#changed.delete(id);
        this.#floor = seq;
      }
    }
    if (this.#order.length - this.#head > 4 * MAX_CHANGES || this.#head > MAX_CHANGES) this.#compact();
  }

  /** Drops the list's forgotten and superseded entries (keys changed again since: their later entry stays). */
  #compact(): void {
    const order: string[] = [];
    const orderSeq: number[] = [];
    for (let i = this.#head; i < this.#order.length; i++) {
      const id = this.#order[i]!;
      const seq = this.#orderSeq[i]!;
      if (this.#changed.get(id) !== seq) continue;
      order.push(id);
      orderSeq.push(seq);
    }
    this.#order = order;
    this.#orderSeq = orderSeq;
    this.#head = 0;
  }

  /** Records a change of everything on the drive (a volume made or removed, a new format). */
  touchAll(): void {
    this.#floor = ++this.#seq;
    this.#changed.clear();
    this.#volumeChanged.clear();
    this.#order = [];
    this.#orderSeq = [];
    this.#head = 0;
  }

  /** True when `stamp` (from {@link stamp}) still vouches for key `dirKey + name` in `volume`. */
  unchanged(volume: string, dirKey: string, name: string, stamp: string): boolean {
    const s = this.#parse(stamp);
    if (s === null || s.seq < this.#floor || Date.now() - s.at > STAMP_MAX_AGE_MS) return false;
    if ((this.#volumeChanged.get(volume) ?? 0) <= s.seq) return true;
    return (this.#changed.get(`${volume}/${dirKey}${name}`) ?? 0) <= s.seq;
  }

  #parse(stamp: string): { seq: number; at: number } | null {
    // The stamps of one batch are mostly the same string: parse it once.
    if (stamp === this.#lastStamp) return this.#lastParsed;
    const [epoch, seq, at] = stamp.split(':');
    const parsed = epoch === this.#epoch && seq !== undefined && at !== undefined ? { seq: Number(seq), at: Number(at) } : null;
    this.#lastStamp = stamp;
    this.#lastParsed = parsed !== null && Number.isSafeInteger(parsed.seq) && Number.isFinite(parsed.at) ? parsed : null;
    return this.#lastParsed;
  }
}

const logs = new Map<string, ChangeLog>();

/** The change log of the drive at `root`, one per drive in the process (shared by every LocalDrive on it). */
export function changeLogFor(root: string): ChangeLog {
  const key = resolve(root);
  let log = logs.get(key);
  if (log === undefined) logs.set(key, (log = new ChangeLog()));
  return log;
}
