import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildState, DirScan } from './drive.js';
import { DiskNotFoundError, FaultyDiskError, FileNotFoundError, InvalidDrivePathError, UnformattedDiskError, VolumeNotFoundError } from './drive-errors.js';
import type { DriveLayout } from './drive-layout.js';
import { runIoJob } from './io-pool.js';
import { CHILD_ERROR, CHILD_META } from './io-worker-source.js';
import { SEGMENT_NAME_FILE, encodeSegment, entryKind } from './object-path.js';

/** The listing calls of a local drive (Drive.listDir, scanDir, readChildren), on its DriveLayout. */

/**
 * A directory stamp vouches for its names only once the directory has not changed for this long: file times come
 * from the kernel's coarse clock (one tick, at most 10 ms at HZ=100), so a change within the same tick as the
 * previous one keeps the same mtime; after 20 ms any later change moves it.
 */
const STAMP_SETTLE_MS = 20;
/** Suffix of a child's stamp taken while its key directory was absent (readChildren). */
const NO_DIR = ':nodir';
/** Most names in one {@link readChildren} call. */
const MAX_CHILDREN_BATCH = 10_000;

export async function listDir(l: DriveLayout, volume: string, dirKey: string): Promise<string[]> {
  const volDir = l.volumeDir(volume);
  const dir = dirKey === '' ? volDir : l.objectDir(volume, dirKey.slice(0, -1)).dir;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    const mapped = await l.mapError(err, dirKey);
    if (!(mapped instanceof FileNotFoundError)) throw mapped;
    if (dirKey !== '') return indexNames(l, volume, dirKey);
    throw new VolumeNotFoundError(l.endpoint, volume);
  }
  const out: string[] = [];
  for (const n of names) {
    const kind = entryKind(n);
    if (kind === 'plain') out.push(n.slice(1));
    else if (kind === 'hashed') {
      try { out.push((await readFile(join(dir, n, SEGMENT_NAME_FILE))).toString('utf8')); } catch { /* being removed */ }
    }
  }
  return union(out, indexNames(l, volume, dirKey));
}

/**
 * The child segments the inline index holds records at or below (inline-index.ts). Read after the directory, in a
 * fresh snapshot: a record that moves from its file to the index is committed there before the file goes, so a key
 * read between the two steps is in one of them.
 */
function indexNames(l: DriveLayout, volume: string, dirKey: string): string[] {
  try {
    l.index.refresh();
    return [...l.index.children(volume, dirKey).keys()];
  } catch (err) {
    throw new FaultyDiskError(l.endpoint, `index of ${dirKey}: ${(err as Error).message}`, { cause: err });
  }
}

function union(a: string[], b: string[]): string[] {
  if (b.length === 0) return a;
  const seen = new Set(a);
  for (const n of b) if (!seen.has(n)) a.push(n);
  return a;
}

/**
 * A scan's stamp covers the directory and the index: `<directory's stamp or "-" when it is absent>|<the volume's
 * index generation>`. The generation changes with every record of the volume (inline-index.ts).
 */
function splitStamp(stamp: string | null): { dir: string | null; gen: string | null } {
  if (stamp === null) return { dir: null, gen: null };
  const bar = stamp.lastIndexOf('|');
  return bar < 0 ? { dir: null, gen: null } : { dir: stamp.slice(0, bar), gen: stamp.slice(bar + 1) };
}

export async function scanDir(l: DriveLayout, volume: string, dirKey: string, knownStamp: string | null): Promise<DirScan> {
  const dir = l.keyDir(volume, dirKey);
  if (knownStamp !== null && typeof knownStamp !== 'string') throw new InvalidDrivePathError('invalid directory stamp');
  // The generation is read before the names: a record committed in between moves it, and the next scan reads again.
  const gen = String(l.index.gen(volume));
  const known = splitStamp(knownStamp);
  const indexSame = known.gen === gen;
  const a = await runIoJob({ op: 'scan', dir, knownStamp: indexSame && known.dir !== '-' ? known.dir : null, settleMs: STAMP_SETTLE_MS }).catch((err: unknown) => {
    throw new FaultyDiskError(l.endpoint, `scan of ${dirKey}: ${(err as Error).message}`, { cause: err });
  });
  if (a.error !== undefined) {
    const mapped = await l.mapError(Object.assign(new Error(a.error), { code: a.error }), dirKey);
    if (!(mapped instanceof FileNotFoundError)) throw mapped;
    if (dirKey === '') throw new VolumeNotFoundError(l.endpoint, volume);
    // Keys only in the index (inline objects need no directory).
    if (indexSame && known.dir === '-') return { names: null, stamp: knownStamp };
    return { names: indexNames(l, volume, dirKey), stamp: `-|${gen}` };
  }
  const stamp = a.stamp === null ? null : `${a.stamp}|${gen}`;
  if (a.entries === null) return { names: null, stamp };
  const names: string[] = [];
  for (const n of a.entries) {
    const kind = entryKind(n);
    if (kind === 'plain') names.push(n.slice(1));
    else if (kind === 'hashed' && a.hashed[n] !== undefined) names.push(a.hashed[n]);
  }
  return { names: union(names, indexNames(l, volume, dirKey)), stamp };
}

export async function readChildren(
  l: DriveLayout, volume: string, dirKey: string, names: readonly string[], withMeta: boolean, known: readonly (string | null)[] | null = null,
): Promise<ChildState[]> {
  const dir = l.keyDir(volume, dirKey);
  if (!Array.isArray(names) || names.length > MAX_CHILDREN_BATCH) throw new InvalidDrivePathError('invalid list of names');
  for (const n of names) {
    if (typeof n !== 'string' || n.includes('/')) throw new InvalidDrivePathError(`invalid key segment: ${JSON.stringify(n)}`);
  }
  // `known` comes over the RPC too: anything but one string-or-null per name is refused.
  if (known !== null && known !== undefined
    && (!Array.isArray(known) || known.length !== names.length || !known.every((k) => k === null || typeof k === 'string'))) {
    throw new InvalidDrivePathError('invalid list of known stamps');
  }
  // Children this drive vouches are unchanged since the caller's stamp are answered `same` without being read
  // (change-log.ts); the others are read, under a stamp taken before the read.
  const stamp = withMeta ? l.changes.stamp() : null;
  const read: number[] = [];
  const same: boolean[] = names.map((n, i) => {
    const k = withMeta ? known?.[i] ?? null : null;
    if (k !== null && l.changes.unchanged(volume, dirKey, n, k)) return true;
    read.push(i);
    return false;
  });
  const encoded = read.map((i) => encodeSegment(names[i]!).name);
  // Run even with nothing to read: the job also checks that the directory is there (a wiped drive answers so).
  const a = await runIoJob({ op: 'children', dir, names: encoded, withMeta: withMeta === true }).catch((err: unknown) => {
    throw new FaultyDiskError(l.endpoint, `read of ${dirKey}: ${(err as Error).message}`, { cause: err });
  });
  // Absent children are checked against the root once: a wiped or unformatted drive is an error, not "no key".
  if (a.missing || a.status.some((s) => s < CHILD_META && withMeta)) {
    const state = await l.rootState();
    if (state === 'missing') throw new DiskNotFoundError(l.endpoint);
    if (state === 'unformatted') throw new UnformattedDiskError(l.endpoint);
  }
  const data = Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength);
  const out: ChildState[] = names.map(() => ({ meta: null, children: false }));
  // The index after the files, in a fresh snapshot (see indexNames).
  refreshIndex(l);
  // A stamp taken while the key directory was absent says so: a child vouched for then lived in the index only.
  const answerStamp = stamp === null ? null : a.missing ? `${stamp}${NO_DIR}` : stamp;
  read.forEach((i, r) => {
    const s = a.status[r]!;
    if (s === CHILD_ERROR) {
      out[i] = { meta: null, children: false, error: `${a.errors[r] ?? 'error'} on ${dirKey}${names[i]}` };
      return;
    }
    // The index's record wins over a metadata file (inline-index.ts); keys below may be in either.
    const indexed = indexChild(l, volume, dirKey, names[i]!);
    const meta = indexed.meta !== undefined ? (withMeta ? indexed.meta : null) : s === CHILD_META ? data.subarray(a.offsets[r]!, a.offsets[r + 1]!) : null;
    const children = a.children[r] === 1 || indexed.deeper;
    out[i] = answerStamp === null ? { meta, children } : { meta, children, stamp: answerStamp };
  });
  same.forEach((isSame, i) => {
    if (!isSame) return;
    // A directory gone since (wiped by hand) holds no children: what was vouched for while it was there is answered
    // afresh, from the index (inline objects have no directory, and their records were not in it).
    if (!a.missing || known![i]!.endsWith(NO_DIR)) {
      out[i] = { meta: null, children: false, stamp: known![i]!, same: true };
      return;
    }
    const indexed = indexChild(l, volume, dirKey, names[i]!);
    out[i] = { meta: indexed.meta ?? null, children: indexed.deeper, stamp: answerStamp! };
  });
  return out;
}

function refreshIndex(l: DriveLayout): void {
  try {
    l.index.refresh();
  } catch (err) {
    throw new FaultyDiskError(l.endpoint, `index: ${(err as Error).message}`, { cause: err });
  }
}

function indexChild(l: DriveLayout, volume: string, dirKey: string, name: string): { meta: Buffer | undefined; deeper: boolean } {
  try {
    return l.index.child(volume, dirKey, name);
  } catch (err) {
    throw new FaultyDiskError(l.endpoint, `index of ${dirKey}${name}: ${(err as Error).message}`, { cause: err });
  }
}
