import type { ChildState, DirScan } from './drive.js';
import { InvalidDrivePathError } from './drive-errors.js';
import type { DriveLayout } from './drive-layout.js';
import type { IndexedObjects } from './indexed-objects.js';
import { vouchedChildren } from './local-listing.js';

/**
 * The listing calls (Drive.scanDir, readChildren) of a drive whose records are in its key index (indexed-objects.ts),
 * with the same stamps as a directory walk gives (local-listing.ts): the drive's change log vouches for what did not
 * change, so a listing of unchanged keys reads nothing again (issue 9 point 3: LIST of 10,000 keys).
 */

/**
 * A listing call on a drive with a key index: the key directory well formed and the bucket here, as for a directory
 * walk (InvalidDrivePathError, VolumeNotFoundError, the drive's own error). The bucket is checked every time (one stat
 * per batch): a listing must see a bucket or a drive that went away.
 */
async function listing<T>(l: DriveLayout, volume: string, dirKey: string, list: () => Promise<T>): Promise<T> {
  l.keyDir(volume, dirKey);
  // The check and the read at once (a listing waits for each batch): the check's error wins, as it did first.
  const [here, got] = await Promise.allSettled([l.volumeHere(volume), list()]);
  if (here.status === 'rejected') throw here.reason;
  if (got.status === 'rejected') throw await l.mapError(got.reason, volume);
  return got.value;
}

/** Drive.listDir on a key-index drive. */
export function listIndexed(l: DriveLayout, ix: IndexedObjects, volume: string, dirKey: string): Promise<string[]> {
  return listing(l, volume, dirKey, () => ix.children(volume, dirKey));
}

/**
 * A directory's names with a stamp: the change log's position before the read, valid while no key under `dirKey`
 * changes (change-log.ts records every change under each of its key's ancestors). The bucket's top level has no
 * such ancestor: its scans carry no stamp.
 */
export function scanIndexed(l: DriveLayout, ix: IndexedObjects, volume: string, dirKey: string, knownStamp: string | null): Promise<DirScan> {
  return listing(l, volume, dirKey, () => scan(l, ix, volume, dirKey, knownStamp));
}

async function scan(l: DriveLayout, ix: IndexedObjects, volume: string, dirKey: string, knownStamp: string | null): Promise<DirScan> {
  if (knownStamp !== null && typeof knownStamp !== 'string') throw new InvalidDrivePathError('invalid directory stamp');
  const at = dirKey.lastIndexOf('/', dirKey.length - 2) + 1;
  const parent = dirKey.slice(0, at);
  const name = dirKey.slice(at, -1);
  const vouched = dirKey !== '' && knownStamp !== null && l.changes.unchanged(volume, parent, name, knownStamp);
  if (vouched) return { names: null, stamp: knownStamp };
  const stamp = dirKey === '' ? null : l.changes.stamp();
  return { names: await ix.children(volume, dirKey), stamp };
}

export function readChildrenIndexed(
  l: DriveLayout, ix: IndexedObjects, volume: string, dirKey: string, names: readonly string[], withMeta: boolean,
  known: readonly (string | null)[] | null,
): Promise<ChildState[]> {
  return listing(l, volume, dirKey, () => childStates(l, ix, volume, dirKey, names, withMeta, known));
}

async function childStates(
  l: DriveLayout, ix: IndexedObjects, volume: string, dirKey: string, names: readonly string[], withMeta: boolean,
  known: readonly (string | null)[] | null,
): Promise<ChildState[]> {
  const { stamp, read, same } = vouchedChildren(l, volume, dirKey, names, withMeta, known);
  const states = read.length === 0 ? [] : await ix.childStates(volume, dirKey, read.map((i) => names[i]!), withMeta);
  const out: ChildState[] = names.map(() => ({ meta: null, children: false }));
  read.forEach((i, r) => {
    const s = states[r]!;
    out[i] = stamp === null ? { meta: s.meta, children: s.children } : { meta: s.meta, children: s.children, stamp };
  });
  same.forEach((isSame, i) => { if (isSame) out[i] = { meta: null, children: false, stamp: known![i]!, same: true }; });
  return out;
}
