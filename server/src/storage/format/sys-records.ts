import { decodeEnvelope, encodeEnvelope } from './envelope.js';
import { CorruptRecordError } from './format-errors.js';
import { decodeLockMeta, lockField, type ObjectLockMeta } from './object-lock-meta.js';
import { decodePartBitrot, type PartBitrot } from './object-meta.js';

/**
 * Small system records, each behind its own magic + version (envelope.ts):
 *  - bucket record (`.bucket.meta`): creation time;
 *  - upload record (`multipart/.../upload.meta`): a multipart upload's key, metadata, erasure layout;
 *  - part record (`part.N.meta`): one uploaded part's size, ETag and checksums.
 */

/** Version 1 bucket record. */
export interface BucketRecord {
  created: number;
  /** Bucket tag set (PutBucketTagging); absent when none. Added without a version bump (optional field). */
  tags?: Array<{ key: string; value: string }>;
  /** Milliseconds since the epoch of the last tag change; the newest record wins when drives disagree. */
  tagsModTime?: number;
  /**
   * Bucket configuration documents (CORS, policy…) by kind, each with its own change time so drives that
   * missed a change are outvoted per kind. An entry without `data` records a deletion (a tombstone, so a
   * stale drive cannot bring the old document back). Added without a version bump (optional field).
   */
  configs?: Record<string, BucketConfigEntry>;
}

/** One bucket configuration document in a bucket record. */
export interface BucketConfigEntry {
  /** Milliseconds since the epoch of the last change of this kind. */
  modTime: number;
  /** The document as the API layer stored it; absent when deleted. */
  data?: string;
}

/** Version 1 multipart upload record. */
export interface UploadRecord {
  bucket: string;
  key: string;
  uploadId: string;
  initiated: number;
  system: Record<string, string>;
  user: Record<string, string>;
  checksumAlgorithm?: string;
  /** x-amz-checksum-type declared at CreateMultipartUpload ("COMPOSITE" or "FULL_OBJECT"); absent: COMPOSITE. */
  checksumType?: string;
  /** Server-reserved metadata for the completed object (see ObjectMeta.internal); absent when none. */
  internal?: Record<string, string>;
  /** Tags for the completed object (x-amz-tagging at CreateMultipartUpload); absent when none. */
  tags?: Array<{ key: string; value: string }>;
  /** Object Lock settings for the completed object (x-amz-object-lock-* at CreateMultipartUpload). */
  lock?: ObjectLockMeta;
  k: number;
  m: number;
  blockSize: number;
  distribution: number[];
}

/** Version 1 part record. */
export interface PartRecord {
  number: number;
  size: number;
  etag: string;
  modTime: number;
  checksums: Record<string, string>;
  /** Erasure layout the part was written with (must match the upload's). */
  k: number;
  m: number;
  /** Layout of the part's shard files, as PartMeta.bitrot (absent: interleaved). */
  bitrot?: PartBitrot;
}

function asMap(what: string, body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null) throw new CorruptRecordError(what, 'body is not a map');
  return body as Record<string, unknown>;
}
function need<T>(what: string, o: Record<string, unknown>, k: string, type: 'string' | 'number'): T {
  if (typeof o[k] !== type) throw new CorruptRecordError(what, `field ${k} is not a ${type}`);
  return o[k] as T;
}
function strMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof v !== 'object' || v === null) return out;
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

function tagList(what: string, v: unknown): Array<{ key: string; value: string }> {
  if (!Array.isArray(v)) throw new CorruptRecordError(what, 'tags is not a list');
  return v.map((t: unknown) => {
    const o = asMap(what, t);
    return { key: need<string>(what, o, 'key', 'string'), value: need<string>(what, o, 'value', 'string') };
  });
}

/** Encodes a bucket record (optional fields only when set). */
export function encodeBucketRecord(r: BucketRecord): Buffer {
  const { tags, tagsModTime, configs, ...rest } = r;
  return encodeEnvelope('SVCB', 1, {
    ...rest,
    ...(tags !== undefined ? { tags } : {}),
    ...(tagsModTime !== undefined ? { tagsModTime } : {}),
    ...(configs !== undefined && Object.keys(configs).length > 0 ? { configs } : {}),
  });
}
/** Decodes any known bucket record version. */
export function decodeBucketRecord(data: Uint8Array): BucketRecord {
  const what = 'bucket record';
  const { version, body } = decodeEnvelope(what, 'SVCB', data);
  if (version !== 1) throw new CorruptRecordError(what, `unsupported version ${version}`);
  const o = asMap(what, body);
  const r: BucketRecord = { created: need<number>(what, o, 'created', 'number') };
  if (o.tags !== undefined) r.tags = tagList(what, o.tags);
  if (typeof o.tagsModTime === 'number') r.tagsModTime = o.tagsModTime;
  if (o.configs !== undefined) r.configs = configMap(what, o.configs);
  return r;
}

function configMap(what: string, v: unknown): Record<string, BucketConfigEntry> {
  const out: Record<string, BucketConfigEntry> = {};
  for (const [kind, e] of Object.entries(asMap(what, v))) {
    const o = asMap(what, e);
    const entry: BucketConfigEntry = { modTime: need<number>(what, o, 'modTime', 'number') };
    if (o.data !== undefined) entry.data = need<string>(what, o, 'data', 'string');
    out[kind] = entry;
  }
  return out;
}

/** Encodes an upload record. */
export function encodeUploadRecord(r: UploadRecord): Buffer {
  const { checksumAlgorithm, checksumType, internal, tags, lock, ...rest } = r;
  return encodeEnvelope('SVCU', 1, {
    ...rest,
    ...lockField(lock),
    ...(checksumAlgorithm !== undefined ? { checksumAlgorithm } : {}),
    ...(checksumType !== undefined ? { checksumType } : {}),
    ...(internal !== undefined && Object.keys(internal).length > 0 ? { internal } : {}),
    ...(tags !== undefined && tags.length > 0 ? { tags } : {}),
  });
}
/** Decodes any known upload record version. */
export function decodeUploadRecord(data: Uint8Array): UploadRecord {
  const what = 'upload record';
  const { version, body } = decodeEnvelope(what, 'SVCU', data);
  if (version !== 1) throw new CorruptRecordError(what, `unsupported version ${version}`);
  const o = asMap(what, body);
  const dist = o.distribution;
  if (!Array.isArray(dist) || !dist.every((x) => typeof x === 'number')) throw new CorruptRecordError(what, 'bad distribution');
  const r: UploadRecord = {
    bucket: need(what, o, 'bucket', 'string'),
    key: need(what, o, 'key', 'string'),
    uploadId: need(what, o, 'uploadId', 'string'),
    initiated: need(what, o, 'initiated', 'number'),
    system: strMap(o.system),
    user: strMap(o.user),
    k: need(what, o, 'k', 'number'),
    m: need(what, o, 'm', 'number'),
    blockSize: need(what, o, 'blockSize', 'number'),
    distribution: dist as number[],
  };
  if (typeof o.checksumAlgorithm === 'string') r.checksumAlgorithm = o.checksumAlgorithm;
  if (typeof o.checksumType === 'string') r.checksumType = o.checksumType;
  if (o.internal !== undefined) {
    const internal = strMap(o.internal);
    if (Object.keys(internal).length > 0) r.internal = internal;
  }
  if (o.tags !== undefined) r.tags = tagList(what, o.tags);
  const lock = decodeLockMeta(what, o.lock);
  if (lock !== undefined) r.lock = lock;
  return r;
}

/** Encodes a part record. */
export function encodePartRecord(r: PartRecord): Buffer {
  const { bitrot, ...rest } = r;
  return encodeEnvelope('SVCP', 1, bitrot !== undefined ? { ...rest, bitrot } : rest);
}
/** Decodes any known part record version. */
export function decodePartRecord(data: Uint8Array): PartRecord {
  const what = 'part record';
  const { version, body } = decodeEnvelope(what, 'SVCP', data);
  if (version !== 1) throw new CorruptRecordError(what, `unsupported version ${version}`);
  const o = asMap(what, body);
  const r: PartRecord = {
    number: need(what, o, 'number', 'number'),
    size: need(what, o, 'size', 'number'),
    etag: need(what, o, 'etag', 'string'),
    modTime: need(what, o, 'modTime', 'number'),
    checksums: strMap(o.checksums),
    k: need(what, o, 'k', 'number'),
    m: need(what, o, 'm', 'number'),
  };
  const bitrot = decodePartBitrot(what, o.bitrot);
  if (bitrot !== undefined) r.bitrot = bitrot;
  return r;
}
