import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChildState, DirScan } from './drive.js';
import { DiskNotFoundError, FaultyDiskError, FileNotFoundError, InvalidDrivePathError, UnformattedDiskError, VolumeNotFoundError } from './drive-errors.js';
import type { DriveLayout } from './drive-layout.js';
import { runIoJob } from './io-pool.js';
import { CHILD_ERROR, CHILD_META } from './io-worker-source.js';
import { SEGMENT_NAME_FILE, encodeSegment, entryKind } from './object-path.js';
import { storeChildren } from './record-listing.js';
import type { RecordStore } from './record-store.js';

/**
 * The listing calls of a local drive (Drive.listDir, scanDir, readChildren), on its DriveLayout and its record store:
 * a key directory's children are its directory's entries and the store's keys below it (record-listing.ts), and the
 * store's record of a key wins over a metadata file of the same key (LocalDrive #commitInline).
 */

/**
 * A directory stamp vouches for its names only once the directory has not changed for this long: file times come
 * from the kernel's coarse clock (one tick, at most 10 ms at HZ=100), so a change within the same tick as the
 * previous one keeps the same mtime; after 20 ms any later change moves it.
 */
const STAMP_SETTLE_MS = 20;
/** Most names in one {@link readChildren} call. */
const MAX_CHILDREN_BATCH = 10_000;

export async function listDir(l: DriveLayout, store: RecordStore, volume: string, dirKey: string): Promise<string[]> {
  const volDir = l.volumeDir(volume);
  const dir = dirKey === '' ? volDir : l.objectDir(volume, dirKey.slice(0, -1)).dir;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    const mapped = await l.mapError(err, dirKey);
    if (!(mapped instanceof FileNotFoundError)) throw mapped;
    if (dirKey === '') throw new VolumeNotFoundError(l.endpoint, volume);
    names = [];
  }
  const stored = await storeChildren(store, volume, dirKey);
  const out: string[] = [...stored.keys()];
  for (const n of names) {
    const kind = entryKind(n);
    if (kind === 'plain') {
      if (!stored.has(n.slice(1))) out.push(n.slice(1));
    } else if (kind === 'hashed') {
      try { out.push((await readFile(join(dir, n, SEGMENT_NAME_FILE))).toString('utf8')); } catch { /* being removed */ }
    }
  }
  return out;
}

/** The directory part of a scan's stamp when the key directory does not exist. */
const NO_DIRECTORY = '-';

/** A scan's stamp: the directory's (from the I/O worker) and the change log's for the store's keys below it. */
function splitStamp(stamp: string | null): { dir: string | null; changes: string | null } {
  const at = stamp === null ? -1 : stamp.lastIndexOf('\n');
  return at < 0 ? { dir: null, changes: null } : { dir: stamp!.slice(0, at), changes: stamp!.slice(at + 1) };
}

export async function scanDir(l: DriveLayout, store: RecordStore, volume: string, dirKey: string, knownStamp: string | null): Promise<DirScan> {
  const dir = l.keyDir(volume, dirKey);
  if (knownStamp !== null && typeof knownStamp !== 'string') throw new InvalidDrivePathError('invalid directory stamp');
  // Taken before the reads: a store change that lands while they run is recorded after it and voids the stamp.
  const changes = l.changes.stamp();
  const known = splitStamp(knownStamp);
  // The directory's stamp is only worth checking when the store's keys below it are unchanged too: else the names are
  // read again anyway.
  const storeSame = known.changes !== null && l.changes.prefixUnchanged(volume, dirKey, known.changes);
  const a = await runIoJob({ op: 'scan', dir, knownStamp: storeSame ? known.dir : null, settleMs: STAMP_SETTLE_MS }).catch((err: unknown) => {
    throw new FaultyDiskError(l.endpoint, `scan of ${dirKey}: ${(err as Error).message}`, { cause: err });
  });
  if (a.error !== undefined) {
    const mapped = await l.mapError(Object.assign(new Error(a.error), { code: a.error }), dirKey);
    if (!(mapped instanceof FileNotFoundError)) throw mapped;
    if (dirKey === '') throw new VolumeNotFoundError(l.endpoint, volume);
    // No directory (small objects' keys have none): the store's keys alone. A later scan vouches for the absence
    // itself (it looks at the directory again), the change log for the store's keys.
    if (storeSame && known.dir === NO_DIRECTORY) return { names: null, stamp: knownStamp };
    return { names: [...(await storeChildren(store, volume, dirKey)).keys()], stamp: `${NO_DIRECTORY}\n${changes}` };
  }
  if (a.entries === null) return { names: null, stamp: knownStamp };
  const stamp = a.stamp === null ? null : `${a.stamp}\n${changes}`;
  const stored = await storeChildren(store, volume, dirKey);
  const names: string[] = [...stored.keys()];
  for (const n of a.entries) {
    const kind = entryKind(n);
    if (kind === 'plain') {
      if (!stored.has(n.slice(1))) names.push(n.slice(1));
    } else if (kind === 'hashed' && a.hashed[n] !== undefined) {
      names.push(a.hashed[n]);
    }
  }
  return { names, stamp };
}

export async function readChildren(
  l: DriveLayout, store: RecordStore, volume: string, dirKey: string, names: readonly string[], withMeta: boolean,
  known: readonly (string | null)[] | null = null,
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
  // A stamp given while the key directory was absent starts with NO_DIRECTORY (see below).
  const givenWithout: boolean[] = [];
  const same: boolean[] = names.map((n, i) => {
    const k = withMeta ? known?.[i] ?? null : null;
    givenWithout[i] = k?.startsWith(NO_DIRECTORY) === true;
    if (k !== null && l.changes.unchanged(volume, dirKey, n, givenWithout[i] ? k.slice(NO_DIRECTORY.length) : k)) return true;
    read.push(i);
    return false;
  });
  const encoded = read.map((i) => encodeSegment(names[i]!).name);
  // Run even with nothing to read: the job also checks that the directory is there (a wiped drive answers so).
  const [a, stored] = await Promise.all([
    runIoJob({ op: 'children', dir, names: encoded, withMeta: withMeta === true }).catch((err: unknown) => {
      throw new FaultyDiskError(l.endpoint, `read of ${dirKey}: ${(err as Error).message}`, { cause: err });
    }),
    storeChildren(store, volume, dirKey, read.map((i) => names[i]!)).catch((err: unknown) => {
      throw new FaultyDiskError(l.endpoint, `read of ${dirKey} in the record store: ${(err as Error).message}`, { cause: err });
    }),
  ]);
  // Absent children are checked against the root once: a wiped or unformatted drive is an error, not "no key".
  if (a.missing || (withMeta && read.some((i, r) => a.status[r]! < CHILD_META && stored.get(names[i]!)?.meta == null))) {
    const state = await l.rootState();
    if (state === 'missing') throw new DiskNotFoundError(l.endpoint);
    if (state === 'unformatted') throw new UnformattedDiskError(l.endpoint);
  }
  const data = Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength);
  const out: ChildState[] = names.map(() => ({ meta: null, children: false }));
  read.forEach((i, r) => {
    const s = a.status[r]!;
    const inStore = stored.get(names[i]!);
    if (s === CHILD_ERROR && inStore?.meta == null) {
      out[i] = { meta: null, children: false, error: `${a.errors[r] ?? 'error'} on ${dirKey}${names[i]}` };
      return;
    }
    const meta = !withMeta ? null : inStore?.meta ?? (s === CHILD_META ? data.subarray(a.offsets[r]!, a.offsets[r + 1]!) : null);
    const children = a.children[r] === 1 || inStore?.children === true;
    out[i] = stamp === null ? { meta, children } : { meta, children, stamp: a.missing ? `${NO_DIRECTORY}${stamp}` : stamp };
  });
  // A directory gone since (wiped by hand) holds no children: what it vouched for is not there either. A stamp given
  // while it was absent already (small objects' keys have no directory: the store holds them) still vouches.
  same.forEach((isSame, i) => {
    if (isSame && (!a.missing || givenWithout[i])) out[i] = { meta: null, children: false, stamp: known![i]!, same: true };
  });
  return out;
}
