import { CorruptRecordError } from './format-errors.js';

/**
 * The per-drive format file (`.svc.sys/format.json`), MinIO's format.json in spirit:
 * which deployment the drive belongs to, the set layout (drive UUIDs per erasure set), this
 * drive's UUID, and how objects are placed on sets. JSON so an operator can read it.
 * `decodeFormat` accepts every past version and upgrades it; `encodeFormat` writes the current one.
 */

/** Placement algorithm: HMAC-SHA256(key = deployment id, message = object key), first 8 bytes mod set count. */
export const DISTRIBUTION_ALGO = 'HMAC-SHA256-MOD';

/** UUID written in a layout slot whose drive is unknown (MinIO's offline placeholder). */
export const OFFLINE_DRIVE_UUID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** Current (version 1) format. */
export interface DriveFormat {
  version: 1;
  format: 'svc';
  deploymentId: string;
  /** This drive's UUID; it appears exactly once in `sets`. */
  thisDrive: string;
  sets: string[][];
  distributionAlgo: typeof DISTRIBUTION_ALGO;
  /**
   * Present (the time it was formatted, ISO 8601) while a drive that was formatted empty as a replacement is not
   * fully healed yet: every node that reads the format then knows that the drive lacks objects (ErasureSet.votesAbsent),
   * not only the node that formatted it. Removed by the first full heal onto it that misses nothing.
   */
  healing?: string;
}

function isStringMatrix(v: unknown): v is string[][] {
  return Array.isArray(v) && v.length > 0 && v.every((row) => Array.isArray(row) && row.length > 0 && row.every((x) => typeof x === 'string'));
}

function decodeV1(o: Record<string, unknown>): DriveFormat {
  const { deploymentId, thisDrive, sets, distributionAlgo } = o;
  if (o.format !== 'svc') throw new CorruptRecordError('format file', `unknown format ${JSON.stringify(o.format)}`);
  if (typeof deploymentId !== 'string' || deploymentId === '') throw new CorruptRecordError('format file', 'missing deploymentId');
  if (typeof thisDrive !== 'string' || thisDrive === '') throw new CorruptRecordError('format file', 'missing thisDrive');
  if (!isStringMatrix(sets)) throw new CorruptRecordError('format file', 'bad sets');
  if (distributionAlgo !== DISTRIBUTION_ALGO) throw new CorruptRecordError('format file', `unknown distributionAlgo ${String(distributionAlgo)}`);
  const f: DriveFormat = { version: 1, format: 'svc', deploymentId, thisDrive, sets, distributionAlgo };
  if (typeof o.healing === 'string') f.healing = o.healing;
  return f;
}

/**
 * The format of drive `thisDrive` in `reference`'s deployment. A replacement (formatted empty while the others hold
 * data) carries the healing mark; no other drive inherits one from the reference.
 */
export function driveFormat(reference: DriveFormat, thisDrive: string, replacement: boolean): DriveFormat {
  const f: DriveFormat = { ...reference, thisDrive };
  delete f.healing;
  if (replacement) f.healing = new Date().toISOString();
  return f;
}

/** Decodes any known version of the format file into the current shape. */
export function decodeFormat(bytes: Uint8Array): DriveFormat {
  let o: unknown;
  try {
    o = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (err) {
    throw new CorruptRecordError('format file', 'not JSON', { cause: err });
  }
  if (typeof o !== 'object' || o === null) throw new CorruptRecordError('format file', 'not an object');
  const rec = o as Record<string, unknown>;
  switch (rec.version) {
    case 1: return decodeV1(rec);
    default: throw new CorruptRecordError('format file', `unsupported version ${JSON.stringify(rec.version)}`);
  }
}

/** Encodes the current format version. */
export function encodeFormat(f: DriveFormat): Buffer {
  return Buffer.from(`${JSON.stringify(f, null, 2)}\n`, 'utf8');
}

/** Where a drive UUID sits in a layout, or undefined. */
export function findDrive(sets: readonly (readonly string[])[], uuid: string): { set: number; index: number } | undefined {
  for (let s = 0; s < sets.length; s++) {
    const i = sets[s]!.indexOf(uuid);
    if (i >= 0) return { set: s, index: i };
  }
  return undefined;
}
