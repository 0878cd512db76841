import { stat } from 'node:fs/promises';
import type { ChildState } from './drive.js';
import { indexHostFor, type IndexHost } from './key-index/index-host.js';

/**
 * A local drive's object records kept in its key index (key-index/) instead of a metadata file per key: the drive
 * layout the next store is built towards (docs/performance.md, "The index worker: design"; issue 9 point 2). Large
 * objects keep their data directories under the key's directory; only the records move.
 *
 * The default for drives formatted from now on (setKeyIndexForNewDrives; `SVC_KEY_INDEX=false` gives them a metadata
 * file per key instead); an `index` directory in a drive's system area says it has this layout, so drives formatted
 * before keep theirs and a set may mix both (mixed-layouts.test.ts). It became the default in the twenty-seventh
 * session (docs/performance.md): 4 KiB PUTs at 16 in flight are faster by more than its uncached GETs are slower, on
 * a machine where every system call is dear even more so. `npm test` runs the server's suite on both layouts.
 */

/** The system area's directory holding a drive's key index; its presence selects the layout. */
export const INDEX_DIR = 'index';

/**
 * Index workers per device (its drives dealt among them). Every lookup of a drive is its worker's, so one worker per
 * device bounded 4 KiB GETs at 16 in flight: `npm run bench -- --only small` on four drives of one disk, alternated
 * twice, GET c16 7,083 and 6,529 with one worker against 8,579 and 8,255 with two (PUT c16 3,030 and 2,819 against
 * 2,697 and 2,581: the batches of one write per drive shrink; docs/performance.md, twenty-fifth session).
 */
const WORKERS_PER_DEVICE = 2;

let forNewDrives = true;

/** Whether drives formatted from now on get the key index (the layout above): the server's SVC_KEY_INDEX. */
export function setKeyIndexForNewDrives(on: boolean): void {
  forNewDrives = on;
}

/** Whether new formats get the key index. */
export function keyIndexWanted(): boolean {
  return forNewDrives;
}

/** Users of each open index in this process (retain/release). */
const users = new Map<string, number>();

export class IndexedObjects {
  readonly #host: IndexHost;
  readonly #dir: string;
  /** Buckets known to be on the drive: an inline commit checks its bucket without a file-system call. */
  readonly #volumes = new Set<string>();

  private constructor(host: IndexHost, dir: string) {
    this.#host = host;
    this.#dir = dir;
  }

  /** The drive's key index when its system area `sys` has one (opened on its device's worker), else null. */
  static async open(sys: string): Promise<IndexedObjects | null> {
    const dir = `${sys}/${INDEX_DIR}`;
    const s = await stat(dir).catch(() => null);
    if (s === null || !s.isDirectory()) return null;
    const host = indexHostFor(String(s.dev), dir, WORKERS_PER_DEVICE);
    await host.call({ op: 'open', dir });
    return new IndexedObjects(host, dir);
  }

  /**
   * Counts a user of the index in this process (a LocalDrive; several may share one root, as tests and restarts do).
   * The last {@link release} closes it in its worker: flushed, its files no longer written.
   */
  retain(): void {
    users.set(this.#dir, (users.get(this.#dir) ?? 0) + 1);
  }

  async release(): Promise<void> {
    const n = (users.get(this.#dir) ?? 1) - 1;
    if (n > 0) {
      users.set(this.#dir, n);
      return;
    }
    users.delete(this.#dir);
    await this.#host.call({ op: 'close', dir: this.#dir });
  }

  /** Resolves once `volume` is known to be here, asking `check` (which throws when it is not) the first time. */
  async knownVolume(volume: string, check: () => Promise<void>): Promise<void> {
    if (this.#volumes.has(volume)) return;
    await check();
    this.#volumes.add(volume);
  }

  /** Commits the key's record durably; resolves with the record it replaced (null when none). */
  async put(volume: string, key: string, meta: Uint8Array): Promise<Buffer | null> {
    const [previous] = (await this.#host.call({ op: 'put', dir: this.#dir, items: [{ volume, key, meta, previous: true }] })) as (Uint8Array | null)[];
    return asBuffer(previous ?? null);
  }

  async get(volume: string, key: string): Promise<Buffer | null> {
    return asBuffer((await this.#host.call({ op: 'get', dir: this.#dir, volume, key })) as Uint8Array | null);
  }

  /** Deletes the key's record durably; resolves with the record it had (null when none). */
  async delete(volume: string, key: string): Promise<Buffer | null> {
    return asBuffer((await this.#host.call({ op: 'delete', dir: this.#dir, volume, key })) as Uint8Array | null);
  }

  async dropVolume(volume: string): Promise<void> {
    this.#volumes.delete(volume);
    await this.#host.call({ op: 'dropVolume', dir: this.#dir, volume });
  }

  async children(volume: string, dirKey: string): Promise<string[]> {
    return (await this.#host.call({ op: 'children', dir: this.#dir, volume, dirKey })) as string[];
  }

  async childStates(volume: string, dirKey: string, names: readonly string[], withMeta: boolean): Promise<ChildState[]> {
    const states = (await this.#host.call({ op: 'childStates', dir: this.#dir, volume, dirKey, names: [...names], withMeta })) as { meta: Uint8Array | null; children: boolean }[];
    return states.map((s) => ({ meta: asBuffer(s.meta), children: s.children }));
  }
}

function asBuffer(bytes: Uint8Array | null): Buffer | null {
  return bytes === null ? null : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
