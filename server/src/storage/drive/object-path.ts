import { createHash } from 'node:crypto';
import { InvalidDrivePathError } from './drive-errors.js';

/**
 * On-disk names for object keys, volumes and system paths.
 *
 * Object keys are arbitrary UTF-8 (up to 1024 bytes) and are stored literally in the object's
 * metadata; on disk every '/'-separated segment becomes one directory whose name can never be
 * `.`, `..`, empty, longer than 255 bytes, or equal to an internal file name:
 *  - a segment of at most 254 UTF-8 bytes is stored as `+<segment>` (the `+` prefix makes `.`,
 *    `..` and the empty segment harmless and keeps user names apart from internal names, none
 *    of which starts with `+` or `#`);
 *  - a longer segment is stored as `#<sha256-hex of the segment>` and the directory holds a
 *    `.name` file with the segment itself, so listings can still report it.
 * An object directory holds `xl.meta` (the metadata record) and one data directory named by a
 * UUID; child segments sit beside them. Volumes (buckets) are directories of the drive root.
 */

/** Metadata record file name inside an object directory. */
export const META_FILE = 'xl.meta';
/** File holding the original segment of a hashed (`#`) segment directory. */
export const SEGMENT_NAME_FILE = '.name';
/** Reserved name of the system directory at a drive root (format, temp, multipart, trash). */
export const SYS_DIR = '.svc.sys';
/** Per-volume metadata file (creation date). */
export const VOLUME_META_FILE = '.bucket.meta';

const MAX_PLAIN_SEGMENT_BYTES = 254;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const VOLUME_RE = /^[A-Za-z0-9._-]{1,255}$/;
const SYS_SEGMENT_RE = /^[A-Za-z0-9._-]{1,255}$/;

/** One on-disk directory name per key segment. */
export interface EncodedSegment {
  name: string;
  /** Set for hashed segments: the text to store in `.name`. */
  original?: string;
}

/** Encodes one key segment (text between slashes) into a directory name. */
export function encodeSegment(segment: string): EncodedSegment {
  if (Buffer.byteLength(segment, 'utf8') <= MAX_PLAIN_SEGMENT_BYTES) return { name: `+${segment}` };
  return { name: `#${createHash('sha256').update(segment, 'utf8').digest('hex')}`, original: segment };
}

/** Kind of a directory entry found inside an object or volume directory. */
export type EntryKind = 'plain' | 'hashed' | 'internal';

/** Classifies an on-disk entry name (user segment, hashed user segment, or internal file). */
export function entryKind(name: string): EntryKind {
  if (name.startsWith('+')) return 'plain';
  if (name.startsWith('#')) return 'hashed';
  return 'internal';
}

/** Encodes a whole key: one directory name per segment. */
export function encodeKey(key: string): EncodedSegment[] {
  return key.split('/').map(encodeSegment);
}

/** True for a data-directory name (a lower-case UUID). */
export function isDataDirName(name: string): boolean {
  return UUID_RE.test(name);
}

/** Throws unless `volume` is a safe volume directory name. */
export function assertVolumeName(volume: string): void {
  if (!VOLUME_RE.test(volume) || volume === '.' || volume === '..' || volume === SYS_DIR) {
    throw new InvalidDrivePathError(`invalid volume name: ${JSON.stringify(volume)}`);
  }
}

/** Throws unless `path` is a relative system path made of safe segments (no `.`/`..`). */
export function assertSysPath(path: string): void {
  const segs = path.split('/');
  for (const s of segs) {
    if (!SYS_SEGMENT_RE.test(s) || s === '.' || s === '..') {
      throw new InvalidDrivePathError(`invalid system path: ${JSON.stringify(path)}`);
    }
  }
}

/** Throws unless `name` is a data-directory name. */
export function assertDataDir(name: string): void {
  if (!isDataDirName(name)) throw new InvalidDrivePathError(`invalid data directory: ${JSON.stringify(name)}`);
}
