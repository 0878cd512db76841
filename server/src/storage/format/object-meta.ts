import { decodeEnvelope, encodeEnvelope } from './envelope.js';
import { CorruptRecordError } from './format-errors.js';
import { decodeLockMeta, lockField, type ObjectLockMeta } from './object-lock-meta.js';

/**
 * The per-object metadata record (`xl.meta`): magic "SVCM" + uint16 version
 * + msgpack (envelope.ts). One record per drive: all drives of a set hold the same record except
 * `erasure.index` (which shard this drive holds) and `inline` (this drive's shard of a small
 * object, bitrot-framed, so objects up to INLINE_LIMIT need no data directory).
 */

const MAGIC = 'SVCM';
/** Single-version records (every unversioned object) keep this layout, byte for byte. */
const SINGLE_VERSION = 1;
/** Records holding a journal of versions (REFERENCE.md fact 5: objects and delete markers). */
const JOURNAL_VERSION = 2;

/** The version id of the "null" version (unversioned and versioning-suspended writes). */
export const NULL_VERSION_ID = 'null';

/** Erasure parameters of an object. */
export interface ErasureInfo {
  /** Data shards. */
  k: number;
  /** Parity shards. */
  m: number;
  blockSize: number;
  /** 1-based shard index held by this drive. */
  index: number;
  /** distribution[i] = 1-based shard index held by drive i of the set. */
  distribution: number[];
}

/** One part of the object's data (a single PUT has exactly one: part 1). */
export interface PartMeta {
  number: number;
  size: number;
  etag: string;
  /** The part's additional checksums (multipart uploads with a checksum algorithm); absent when none. */
  checksums?: Record<string, string>;
  /**
   * 'trailing': the part's shard files hold their chunks back to back and the bitrot hashes after them (storage/bitrot
   * streaming.ts). Absent: each chunk after its hash (interleaved), as every part written before the field existed.
   */
  bitrot?: PartBitrot;
}

/** Layout of a part's shard files when it is not the interleaved one (PartMeta.bitrot, PartRecord.bitrot). */
export type PartBitrot = 'trailing';

/** The `bitrot` field of a part in a record named `what`: undefined when absent, CorruptRecordError when unknown. */
export function decodePartBitrot(what: string, v: unknown): PartBitrot | undefined {
  if (v === undefined || v === 'trailing') return v;
  throw new CorruptRecordError(what, `unknown bitrot layout ${String(v)}`);
}

/** One object tag as stored. */
export interface ObjectTagMeta {
  key: string;
  value: string;
}

/** One object version: its data (inline or in its own data directory), erasure layout and metadata. */
export interface ObjectMeta {
  /**
   * In a record returned by decodeObjectRecord: the S3 version id (a UUID, or "null"). In a version-1 record as
   * decoded by decodeObjectMeta: the record's write id (version-1 records hold the null version only).
   */
  versionId: string;
  key: string;
  size: number;
  etag: string;
  /** Milliseconds since the epoch. */
  modTime: number;
  system: Record<string, string>;
  user: Record<string, string>;
  checksums: Record<string, string>;
  /** Set for multipart objects. */
  partCount?: number;
  /**
   * Object tags (S3 object tagging), in the order they were given; absent in records written before
   * tagging existed and when untagged. A list, not a map: any string is a valid tag key ("__proto__" too).
   */
  tags?: ObjectTagMeta[];
  /**
   * Server-reserved metadata the API layer stores with the version and the engine never interprets (server-side
   * encryption seals, the plaintext size and ETag of encrypted data); absent when empty.
   */
  internal?: Record<string, string>;
  /** Object Lock retention / legal hold of this version; absent when unlocked. */
  lock?: ObjectLockMeta;
  erasure: ErasureInfo;
  /** UUID of the data directory, or null when the data is inline. */
  dataDir: string | null;
  parts: PartMeta[];
  inline: Buffer | null;
}

function str(o: Record<string, unknown>, k: string): string {
  const v = o[k];
  if (typeof v !== 'string') throw new CorruptRecordError('object metadata', `field ${k} is not a string`);
  return v;
}
function num(o: Record<string, unknown>, k: string): number {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new CorruptRecordError('object metadata', `field ${k} is not a number`);
  return v;
}
function strMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof v !== 'object' || v === null) return out;
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}
function tagList(v: unknown): ObjectTagMeta[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new CorruptRecordError('object metadata', 'tags is not a list');
  return v.map((t: unknown) => {
    if (typeof t !== 'object' || t === null) throw new CorruptRecordError('object metadata', 'bad tag');
    const r = t as Record<string, unknown>;
    return { key: str(r, 'key'), value: str(r, 'value') };
  });
}
function bytes(v: unknown): Buffer | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Uint8Array) return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  throw new CorruptRecordError('object metadata', 'inline is not binary');
}

/** A delete marker (S3 versioning): a version without data that makes its key look deleted. */
export interface DeleteMarkerMeta {
  deleteMarker: true;
  versionId: string;
  key: string;
  /** Milliseconds since the epoch. */
  modTime: number;
}

/** One entry of the version journal. */
export type VersionMeta = ObjectMeta | DeleteMarkerMeta;

/** True for a delete marker. */
export function isDeleteMarker(v: VersionMeta): v is DeleteMarkerMeta {
  return (v as Partial<DeleteMarkerMeta>).deleteMarker === true;
}

/** The whole metadata record of a key: every version, newest first. */
export interface ObjectRecord {
  key: string;
  /** Unique per write of the record: drives agree on a record when their write ids are equal. */
  writeId: string;
  versions: VersionMeta[];
}

function decodeV1(o: Record<string, unknown>): ObjectMeta {
  const e = o.erasure as Record<string, unknown> | undefined;
  if (typeof e !== 'object' || e === null) throw new CorruptRecordError('object metadata', 'missing erasure');
  const dist = e.distribution;
  if (!Array.isArray(dist) || !dist.every((x) => typeof x === 'number')) throw new CorruptRecordError('object metadata', 'bad distribution');
  const parts = o.parts;
  if (!Array.isArray(parts)) throw new CorruptRecordError('object metadata', 'missing parts');
  const dataDir = o.dataDir;
  if (dataDir !== null && typeof dataDir !== 'string') throw new CorruptRecordError('object metadata', 'bad dataDir');
  const meta: ObjectMeta = {
    versionId: str(o, 'versionId'),
    key: str(o, 'key'),
    size: num(o, 'size'),
    etag: str(o, 'etag'),
    modTime: num(o, 'modTime'),
    system: strMap(o.system),
    user: strMap(o.user),
    checksums: strMap(o.checksums),
    erasure: {
      k: num(e, 'k'), m: num(e, 'm'), blockSize: num(e, 'blockSize'), index: num(e, 'index'), distribution: dist as number[],
    },
    dataDir,
    parts: parts.map((p: Record<string, unknown>): PartMeta => {
      const part: PartMeta = { number: num(p, 'number'), size: num(p, 'size'), etag: str(p, 'etag') };
      const sums = strMap(p.checksums);
      if (Object.keys(sums).length > 0) part.checksums = sums;
      const bitrot = decodePartBitrot('object metadata', p.bitrot);
      if (bitrot !== undefined) part.bitrot = bitrot;
      return part;
    }),
    inline: bytes(o.inline),
  };
  if (typeof o.partCount === 'number') meta.partCount = o.partCount;
  const tags = tagList(o.tags);
  if (tags.length > 0) meta.tags = tags;
  const internal = strMap(o.internal);
  if (Object.keys(internal).length > 0) meta.internal = internal;
  const lock = decodeLockMeta('object metadata', o.lock);
  if (lock !== undefined) meta.lock = lock;
  return meta;
}

function decodeV2(o: Record<string, unknown>): ObjectRecord {
  const key = str(o, 'key');
  const writeId = str(o, 'writeId');
  const list = o.versions;
  if (!Array.isArray(list) || list.length === 0) throw new CorruptRecordError('object metadata', 'missing versions');
  const versions = list.map((v: unknown): VersionMeta => {
    if (typeof v !== 'object' || v === null) throw new CorruptRecordError('object metadata', 'bad version');
    const r = v as Record<string, unknown>;
    switch (r.type) {
      case 'marker': return { deleteMarker: true, versionId: str(r, 'versionId'), key, modTime: num(r, 'modTime') };
      case 'object': return decodeV1({ ...r, key });
      default: throw new CorruptRecordError('object metadata', `unknown version type ${String(r.type)}`);
    }
  });
  return { key, writeId, versions };
}

function decodeBody(data: Uint8Array): { version: number; body: Record<string, unknown> } {
  const { version, body } = decodeEnvelope('object metadata', MAGIC, data);
  if (typeof body !== 'object' || body === null) throw new CorruptRecordError('object metadata', 'body is not a map');
  return { version, body: body as Record<string, unknown> };
}

/**
 * Decodes any known version of the record. A version-1 record is one "null" object version whose write id
 * is the record's stored versionId.
 */
export function decodeObjectRecord(data: Uint8Array): ObjectRecord {
  const { version, body } = decodeBody(data);
  switch (version) {
    case SINGLE_VERSION: {
      const meta = decodeV1(body);
      return { key: meta.key, writeId: meta.versionId, versions: [{ ...meta, versionId: NULL_VERSION_ID }] };
    }
    case JOURNAL_VERSION: return decodeV2(body);
    default: throw new CorruptRecordError('object metadata', `unsupported version ${version}`);
  }
}

/**
 * Decodes the newest object version of a record (tools and tests looking at one drive's shard). For a
 * version-1 record `versionId` is the stored write id, as version-1 readers saw it.
 */
export function decodeObjectMeta(data: Uint8Array): ObjectMeta {
  const { version, body } = decodeBody(data);
  switch (version) {
    case SINGLE_VERSION: return decodeV1(body);
    case JOURNAL_VERSION: {
      const found = decodeV2(body).versions.find((v): v is ObjectMeta => !isDeleteMarker(v));
      if (found === undefined) throw new CorruptRecordError('object metadata', 'record holds delete markers only');
      return found;
    }
    default: throw new CorruptRecordError('object metadata', `unsupported version ${version}`);
  }
}

function objectFields(meta: ObjectMeta): Record<string, unknown> {
  const { partCount, tags, internal, lock, ...rest } = meta;
  return {
    ...rest,
    // Same key position as before (spreading keeps it), so records without part checksums stay byte-identical.
    parts: meta.parts.map(({ checksums, ...p }) => (checksums !== undefined && Object.keys(checksums).length > 0 ? { ...p, checksums } : p)),
    ...(internal !== undefined && Object.keys(internal).length > 0 ? { internal: { ...internal } } : {}),
    ...lockField(lock),
    ...(partCount !== undefined ? { partCount } : {}),
    ...(tags !== undefined && tags.length > 0 ? { tags: tags.map((t) => ({ key: t.key, value: t.value })) } : {}),
  };
}

/**
 * Encodes a single-version (version 1) record. Optional fields are written only when set, so an untagged
 * object's record is byte-identical to what earlier releases wrote (tags were added without a version bump:
 * readers that predate them ignore the extra map field).
 */
export function encodeObjectMeta(meta: ObjectMeta): Buffer {
  return encodeEnvelope(MAGIC, SINGLE_VERSION, objectFields(meta));
}

/**
 * Encodes a record. A record holding only the "null" object version is written as version 1 (its write id in
 * the versionId field), so unversioned buckets keep the exact on-disk layout of earlier releases; anything
 * else is a version-2 journal.
 */
export function encodeObjectRecord(record: ObjectRecord): Buffer {
  const only = record.versions.length === 1 ? record.versions[0]! : undefined;
  if (only !== undefined && !isDeleteMarker(only) && only.versionId === NULL_VERSION_ID) {
    return encodeObjectMeta({ ...only, versionId: record.writeId });
  }
  return encodeEnvelope(MAGIC, JOURNAL_VERSION, {
    key: record.key,
    writeId: record.writeId,
    versions: record.versions.map((v) => {
      if (isDeleteMarker(v)) return { type: 'marker', versionId: v.versionId, modTime: v.modTime };
      const { key: _key, ...fields } = objectFields(v);
      return { type: 'object', ...fields };
    }),
  });
}
