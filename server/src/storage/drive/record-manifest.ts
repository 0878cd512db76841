import { open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunReader } from './record-run.js';

/**
 * The files of a record store (record-store.ts): its MANIFEST, naming the live runs, and the runs as the store holds
 * them (reference-counted), with the policy choosing which runs a background merge rewrites.
 */

/** The manifest's file name (the only file of a store directory besides its runs). */
export const MANIFEST = 'MANIFEST';
const MANIFEST_TMP = 'MANIFEST.tmp';
/** More runs than this and the newest two are merged whatever their sizes (each one costs every lookup a probe). */
const MAX_RUNS = 12;
/** Runs of one tier merged at once (see pickMerge). */
const FAN_IN = 4;

/** A run as the manifest names it; `size` in bytes, `count` entries (records and tombstones). */
export interface ManifestRun {
  gen: number;
  file: string;
  size: number;
  count: number;
}

/** The MANIFEST: runs oldest first, the next generation, and per dropped volume the generation dropped up to. */
export interface Manifest {
  version: 1;
  nextGen: number;
  runs: ManifestRun[];
  drops: { volume: string; gen: number }[];
}

/**
 * A run of the list, reference-counted: a lookup or cursor that started on it keeps it open, and its file in place,
 * after a merge took it out of the list. The list holds the first reference.
 */
export class Run {
  readonly meta: ManifestRun;
  readonly reader: RunReader;
  readonly #path: string;
  readonly #onDispose: (done: Promise<void>) => void;
  #refs = 1;
  #unlink = false;

  constructor(dir: string, meta: ManifestRun, reader: RunReader, onDispose: (done: Promise<void>) => void) {
    this.meta = meta;
    this.reader = reader;
    this.#path = join(dir, meta.file);
    this.#onDispose = onDispose;
  }

  get gen(): number {
    return this.meta.gen;
  }

  acquire(): void {
    this.#refs++;
  }

  release(): void {
    if (--this.#refs > 0) return;
    const unlinkFile = this.#unlink;
    this.#onDispose(this.reader.close().catch(() => undefined).then(() => (unlinkFile ? unlink(this.#path).catch(() => undefined) : undefined)));
  }

  /** Out of the list: closed once unreferenced, its file deleted when `unlinkFile`. */
  retire(unlinkFile: boolean): void {
    this.#unlink = unlinkFile;
    this.release();
  }
}

/** The manifest in `dir`; an empty store's when there is none. */
export async function readManifest(dir: string): Promise<Manifest> {
  try {
    return parseManifest(await readFile(join(dir, MANIFEST), 'utf8'), dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return { version: 1, nextGen: 1, runs: [], drops: [] };
  }
}

/**
 * Puts `manifest` in place atomically: a synced temp file renamed over the old one. The caller syncs the directory
 * (what makes the rename durable), once it holds the new state itself.
 */
export async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  const tmp = join(dir, MANIFEST_TMP);
  try {
    const fh = await open(tmp, 'w');
    try {
      await fh.writeFile(JSON.stringify(manifest));
      await fh.datasync();
    } finally {
      await fh.close();
    }
    await rename(tmp, join(dir, MANIFEST));
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

/**
 * The runs to merge next, or null: size-tiered with a fan-in of {@link FAN_IN}, so that a record is rewritten about
 * log_4(n) times, not log_2(n) (merges run on the event loop: each rewrite of every record costs every PUT). A tier is
 * the runs within a factor of FAN_IN of the newest one's size; once FAN_IN of them are there (newest first), they
 * are merged into one run of the next tier; past MAX_RUNS, at least the newest two.
 */
export function pickMerge(runs: readonly Run[]): Run[] | null {
  const n = runs.length;
  if (n < 2) return null;
  const size = (i: number): number => runs[i]!.meta.size;
  let from = n - 1;
  let total = size(n - 1);
  while (from > 0 && size(from - 1) <= FAN_IN * Math.max(size(n - 1), total / (n - from))) total += size(--from);
  if (n - from >= FAN_IN) return runs.slice(from);
  return n > MAX_RUNS ? runs.slice(n - 2) : null;
}

/** A generation in a file name: zero-padded, so names sort like generations. */
export function pad(gen: number): string {
  return String(gen).padStart(12, '0');
}

function parseManifest(text: string, dir: string): Manifest {
  const m = JSON.parse(text) as Manifest | null;
  const ok = typeof m === 'object' && m !== null && m.version === 1 && Number.isSafeInteger(m.nextGen) && Array.isArray(m.runs) && Array.isArray(m.drops)
    && m.runs.every((r, i) => Number.isSafeInteger(r.gen) && r.gen < m.nextGen && (i === 0 || r.gen > m.runs[i - 1]!.gen)
      && typeof r.file === 'string' && /^run-[0-9-]+\.run$/.test(r.file) && Number.isSafeInteger(r.size) && Number.isSafeInteger(r.count))
    && m.drops.every((d) => typeof d.volume === 'string' && Number.isSafeInteger(d.gen));
  if (!ok) throw Object.assign(new Error(`${dir}/${MANIFEST}: not a record store manifest of version 1`), { code: 'ESVCRUN' });
  return m;
}
