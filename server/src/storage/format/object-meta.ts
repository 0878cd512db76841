import { decodeEnvelope, encodeEnvelope } from './envelope.js';
import { CorruptRecordError } from './format-errors.js';

/**
 * The per-object metadata record (`xl.meta`): magic "SVCM" + uint16 version
 * + msgpack (envelope.ts). One record per drive: all drives of a set hold the same record except
 * `erasure.index` (which shard this drive holds) and `inline` (this drive's shard of a small
 * object, bitrot-framed, so objects up to INLINE_LIMIT need no data directory).
 */

const MAGIC = 'SVCM';
const CURRENT_VERSION = 1;

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
}

/** One object tag as stored. */
export interface ObjectTagMeta {
  key: string;
  value: string;
}

/** Current (version 1) object metadata. */
export interface ObjectMeta {
  /** Unique per write; drives agree on an object version when their versionIds are equal. */
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
    parts: parts.map((p: Record<string, unknown>) => ({ number: num(p, 'number'), size: num(p, 'size'), etag: str(p, 'etag') })),
    inline: bytes(o.inline),
  };
  if (typeof o.partCount === 'number') meta.partCount = o.partCount;
  const tags = tagList(o.tags);
  if (tags.length > 0) meta.tags = tags;
  return meta;
}

/** Decodes any known version of the record into the current shape. */
export function decodeObjectMeta(data: Uint8Array): ObjectMeta {
  const { version, body } = decodeEnvelope('object metadata', MAGIC, data);
  if (typeof body !== 'object' || body === null) throw new CorruptRecordError('object metadata', 'body is not a map');
  switch (version) {
    case 1: return decodeV1(body as Record<string, unknown>);
    default: throw new CorruptRecordError('object metadata', `unsupported version ${version}`);
  }
}

/**
 * Encodes the current version. Optional fields are written only when set, so an untagged object's
 * record is byte-identical to what earlier releases wrote (tags were added without a version bump:
 * readers that predate them ignore the extra map field).
 */
export function encodeObjectMeta(meta: ObjectMeta): Buffer {
  const { partCount, tags, ...rest } = meta;
  return encodeEnvelope(MAGIC, CURRENT_VERSION, {
    ...rest,
    ...(partCount !== undefined ? { partCount } : {}),
    ...(tags !== undefined && tags.length > 0 ? { tags: tags.map((t) => ({ key: t.key, value: t.value })) } : {}),
  });
}
