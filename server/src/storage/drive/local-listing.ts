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
    if (dirKey !== '') return [];
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
  return out;
}

export async function scanDir(l: DriveLayout, volume: string, dirKey: string, knownStamp: string | null): Promise<DirScan> {
  const dir = l.keyDir(volume, dirKey);
  if (knownStamp !== null && typeof knownStamp !== 'string') throw new InvalidDrivePathError('invalid directory stamp');
  const a = await runIoJob({ op: 'scan', dir, knownStamp, settleMs: STAMP_SETTLE_MS }).catch((err: unknown) => {
    throw new FaultyDiskError(l.endpoint, `scan of ${dirKey}: ${(err as Error).message}`, { cause: err });
  });
  if (a.error !== undefined) {
    const mapped = await l.mapError(Object.assign(new Error(a.error), { code: a.error }), dirKey);
    if (!(mapped instanceof FileNotFoundError)) throw mapped;
    if (dirKey !== '') return { names: [], stamp: null };
    throw new VolumeNotFoundError(l.endpoint, volume);
  }
  if (a.entries === null) return { names: null, stamp: a.stamp };
  const names: string[] = [];
  for (const n of a.entries) {
    const kind = entryKind(n);
    if (kind === 'plain') names.push(n.slice(1));
    else if (kind === 'hashed' && a.hashed[n] !== undefined) names.push(a.hashed[n]);
  }
  return { names, stamp: a.stamp };
}

/**
 * Checks a readChildren call's arguments (they come over the RPC too), and splits its children: those the caller's
 * stamps still vouch for (`same`, answered without a read: change-log.ts) and those to read (`read`), under a stamp
 * taken before the read (null without metadata).
 */
export function vouchedChildren(
  l: DriveLayout, volume: string, dirKey: string, names: readonly string[], withMeta: boolean, known: readonly (string | null)[] | null,
): { stamp: string | null; read: number[]; same: boolean[] } {
  if (!Array.isArray(names) || names.length > MAX_CHILDREN_BATCH) throw new InvalidDrivePathError('invalid list of names');
  for (const n of names) {
    if (typeof n !== 'string' || n.includes('/')) throw new InvalidDrivePathError(`invalid key segment: ${JSON.stringify(n)}`);
  }
  // `known` comes over the RPC too: anything but one string-or-null per name is refused.
  if (known !== null && known !== undefined
    && (!Array.isArray(known) || known.length !== names.length || !known.every((k) => k === null || typeof k === 'string'))) {
    throw new InvalidDrivePathError('invalid list of known stamps');
  }
  const stamp = withMeta ? l.changes.stamp() : null;
  const read: number[] = [];
  const same: boolean[] = names.map((n, i) => {
    const k = withMeta ? known?.[i] ?? null : null;
    if (k !== null && l.changes.unchanged(volume, dirKey, n, k)) return true;
    read.push(i);
    return false;
  });
  return { stamp, read, same };
}

export async function readChildren(
  l: DriveLayout, volume: string, dirKey: string, names: readonly string[], withMeta: boolean, known: readonly (string | null)[] | null = null,
): Promise<ChildState[]> {
  const dir = l.keyDir(volume, dirKey);
  const { stamp, read, same } = vouchedChildren(l, volume, dirKey, names, withMeta, known);
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
  read.forEach((i, r) => {
    const s = a.status[r]!;
    if (s === CHILD_ERROR) {
      out[i] = { meta: null, children: false, error: `${a.errors[r] ?? 'error'} on ${dirKey}${names[i]}` };
      return;
    }
    const meta = s === CHILD_META ? data.subarray(a.offsets[r]!, a.offsets[r + 1]!) : null;
    out[i] = stamp === null ? { meta, children: a.children[r] === 1 } : { meta, children: a.children[r] === 1, stamp };
  });
  // A directory gone since (wiped by hand) holds no children: what was vouched for is not there either.
  if (!a.missing) same.forEach((isSame, i) => { if (isSame) out[i] = { meta: null, children: false, stamp: known![i]!, same: true }; });
  return out;
}
