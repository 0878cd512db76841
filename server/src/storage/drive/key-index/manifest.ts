import { readFileSync, renameSync } from 'node:fs';
import { syncDirSync, writeSyncedFile } from './sync-files.js';
import type { LogPosition } from './value-log.js';

/**
 * Which files make up a drive's key index, replaced atomically (temp file, fsync, rename, directory fsync) after every
 * flush and merge: the runs in order (oldest first), how far into the value log they cover (replay starts there), the
 * volumes dropped (a deleted bucket's entries in older runs are dead: their records are older than the drop).
 */
export interface Manifest {
  version: 1;
  runs: string[];
  covered: LogPosition;
  drops: { volume: string; at: LogPosition }[];
  /** Number of the last run file made (names are never reused). */
  runSeq: number;
  /** Bytes of live records per value-log segment at `covered` (drive-index.ts `collect`). */
  live?: Record<string, number>;
}

const NAME = 'MANIFEST';

/** A manifest that parses but is not one (the index is then rebuilt from the value log). */
export class ManifestError extends Error {
  constructor(dir: string) {
    super(`key index: unreadable manifest in ${dir}`);
    this.name = 'ManifestError';
  }
}

export function emptyManifest(): Manifest {
  return { version: 1, runs: [], covered: { gen: 0, offset: 0 }, drops: [], runSeq: 0 };
}

/** The manifest in `dir`, or null when there is none (a new index). A damaged one throws: the caller rebuilds. */
export function readManifest(dir: string): Manifest | null {
  let text: string;
  try {
    text = readFileSync(`${dir}/${NAME}`, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const m = JSON.parse(text) as Manifest;
  if (m.version !== 1 || !Array.isArray(m.runs) || typeof m.covered?.gen !== 'number' || !Array.isArray(m.drops)) {
    throw new ManifestError(dir);
  }
  return m;
}

export function writeManifest(dir: string, m: Manifest): void {
  const tmp = `${dir}/${NAME}.tmp`;
  writeSyncedFile(tmp, Buffer.from(JSON.stringify(m)));
  renameSync(tmp, `${dir}/${NAME}`);
  syncDirSync(dir);
}
