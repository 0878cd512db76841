import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { BLOCK_SIZE, countOk, writeQuorum } from '../erasure/index.js';
import { decodePartRecord, decodeUploadRecord, encodePartRecord, encodeUploadRecord } from '../format/index.js';
import type { ObjectMeta, PartRecord, UploadRecord } from '../format/index.js';
import type { ErasureSet } from './erasure-set.js';
import { toObjectInfo } from './erasure-set.js';
import type {
  ChecksumAlgorithm, CreateMultipartOptions, CompleteMultipartOptions, CompletePart, ListPartsResult, MultipartUploadInfo, ObjectInfo, PartInfo,
  PutObjectOptions, SystemMetadataName,
} from './object-layer.js';
import { checkBody, commitObject, dropTemp, encodeToTemp, layoutFor, partLayout } from './object-write.js';
import { writeQuorumLost } from './quorum-loss.js';
import { toLockMeta } from './lock-state.js';
import {
  EntityTooSmallError, InsufficientWriteQuorumError, InvalidPartError, InvalidPartOrderError, UploadNotFoundError,
} from './storage-errors.js';

/**
 * Multipart uploads (https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpuoverview.html).
 * An upload lives in `.svc.sys/multipart/<bucket>/<sha256(key)>/<uploadId>/` on every drive of
 * the key's set: `upload.meta`, `parts/part.N` (erasure shards, same layout as the object), and
 * `part.N.meta`. Complete renames `parts/` into the object as its data directory: no byte is
 * copied, unlisted parts are dropped.
 */

/** S3's minimum size of every part but the last. */
export const MIN_PART_SIZE = 5 * 1024 * 1024;
const UPLOAD_ID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function keyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** System path of an upload directory. */
export function uploadDir(bucket: string, key: string, uploadId: string): string {
  if (!UPLOAD_ID_RE.test(uploadId)) throw new UploadNotFoundError(uploadId);
  return `multipart/${bucket}/${keyHash(key)}/${uploadId}`;
}

/** The upload record as a majority of the set's drives hold it. */
export async function readUpload(set: ErasureSet, bucket: string, key: string, uploadId: string): Promise<UploadRecord> {
  const dir = uploadDir(bucket, key, uploadId);
  const res = await set.each(async (d) => decodeUploadRecord(await d.readSysFile(`${dir}/upload.meta`)));
  const found = res.filter((r) => r.ok);
  if (found.length < set.readQuorum || found[0] === undefined || !found[0].ok) throw new UploadNotFoundError(uploadId);
  const rec = found[0].value;
  if (rec.key !== key || rec.bucket !== bucket) throw new UploadNotFoundError(uploadId);
  return rec;
}

/** MultipartUploadInfo view of an upload record. */
export function toUploadInfo(rec: UploadRecord): MultipartUploadInfo {
  const info: MultipartUploadInfo = {
    key: rec.key,
    uploadId: rec.uploadId,
    initiated: new Date(rec.initiated),
    metadata: { system: rec.system as Partial<Record<SystemMetadataName, string>>, user: rec.user },
  };
  if (rec.checksumAlgorithm !== undefined) info.checksumAlgorithm = rec.checksumAlgorithm as ChecksumAlgorithm;
  if (rec.checksumType === 'COMPOSITE' || rec.checksumType === 'FULL_OBJECT') info.checksumType = rec.checksumType;
  if (rec.internal !== undefined) info.internal = { ...rec.internal };
  return info;
}

/** CreateMultipartUpload on this set. */
export async function createUpload(
  set: ErasureSet, bucket: string, key: string, opts: CreateMultipartOptions,
): Promise<string> {
  const uploadId = randomUUID();
  const layout = layoutFor(set, key);
  const rec: UploadRecord = {
    bucket, key, uploadId, initiated: Date.now(),
    system: { ...opts.metadata.system }, user: { ...opts.metadata.user },
    k: layout.k, m: layout.m, blockSize: BLOCK_SIZE, distribution: layout.distribution,
  };
  if (opts.checksumAlgorithm !== undefined) rec.checksumAlgorithm = opts.checksumAlgorithm;
  if (opts.checksumType !== undefined) rec.checksumType = opts.checksumType;
  if (opts.internal !== undefined && Object.keys(opts.internal).length > 0) rec.internal = { ...opts.internal };
  if (opts.tags !== undefined && opts.tags.length > 0) rec.tags = opts.tags.map((t) => ({ key: t.key, value: t.value }));
  const lock = toLockMeta(opts.lock);
  if (lock !== undefined) rec.lock = lock;
  const data = encodeUploadRecord(rec);
  const dir = uploadDir(bucket, key, uploadId);
  const res = await set.each((d) => d.writeSysFile(`${dir}/upload.meta`, data));
  const wq = writeQuorum(layout.k, layout.m);
  if (countOk(res) < wq) {
    await set.each((d) => d.deleteSysPath(dir));
    throw new InsufficientWriteQuorumError(`cannot create upload: ${countOk(res)} of ${set.n} drives answered`);
  }
  return uploadId;
}

function toPartInfo(p: PartRecord): PartInfo {
  return { partNumber: p.number, etag: p.etag, size: p.size, lastModified: new Date(p.modTime), checksums: { ...p.checksums } };
}

/** UploadPart on this set. */
export async function putPart(
  set: ErasureSet, bucket: string, key: string, uploadId: string, partNumber: number, body: Readable,
  opts: Omit<PutObjectOptions, 'metadata'>,
): Promise<PartInfo> {
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10000) throw new InvalidPartError(`invalid part number ${partNumber}`);
  const rec = await readUpload(set, bucket, key, uploadId);
  const dir = uploadDir(bucket, key, uploadId);
  const tmpDir = `tmp/${randomUUID()}`;
  const layout = { k: rec.k, m: rec.m, distribution: rec.distribution };
  try {
    const result = await encodeToTemp(set, body, layout, `${tmpDir}/part.${partNumber}`, -1, opts.size);
    checkBody(result, opts);
    const part: PartRecord = {
      number: partNumber, size: result.size, etag: result.md5.toString('hex'), modTime: Date.now(),
      checksums: { ...(opts.checksums?.() ?? {}) }, k: rec.k, m: rec.m, ...partLayout(result),
    };
    const data = encodePartRecord(part);
    const mask = set.drives.map((_, i) => result.written[rec.distribution[i]! - 1] === true);
    const res = await set.each(async (d) => {
      await d.renameSys(`${tmpDir}/part.${partNumber}`, `${dir}/parts/part.${partNumber}`);
      await d.writeSysFile(`${dir}/part.${partNumber}.meta`, data);
    }, mask);
    const wq = writeQuorum(rec.k, rec.m);
    if (countOk(res) < wq) {
      throw writeQuorumLost(`part ${partNumber}: ${countOk(res)} of ${set.n} drives committed`, res.map((r) => (r.ok ? undefined : r.error)));
    }
    return toPartInfo(part);
  } finally {
    await dropTemp(set, tmpDir);
  }
}

/** Part numbers with a record on any drive of the upload directory `dir`, ascending. */
async function partNumbers(set: ErasureSet, dir: string): Promise<number[]> {
  const names = await set.each((d) => d.listSysDir(dir));
  const numbers = new Set<number>();
  for (const r of names) {
    if (!r.ok) continue;
    for (const n of r.value) {
      const m = /^part\.(\d+)\.meta$/.exec(n);
      if (m !== null) numbers.add(Number(m[1]));
    }
  }
  return [...numbers].sort((a, b) => a - b);
}

/**
 * The records of parts `numbers` agreed by a read quorum, by part number (absent: none agreed). Only these are read:
 * a listing page or a completion costs the parts it names, not every part of the upload (10,000 at most).
 */
async function readPartRecords(set: ErasureSet, dir: string, numbers: readonly number[], k: number): Promise<Map<number, PartRecord>> {
  const out = new Map<number, PartRecord>();
  await Promise.all(numbers.map(async (num) => {
    const res = await set.each(async (d) => decodePartRecord(await d.readSysFile(`${dir}/part.${num}.meta`)));
    const votes = new Map<string, { rec: PartRecord; n: number }>();
    for (const r of res) {
      if (!r.ok) continue;
      const id = `${r.value.etag}/${r.value.size}/${r.value.modTime}`;
      const v = votes.get(id) ?? { rec: r.value, n: 0 };
      v.n++;
      votes.set(id, v);
    }
    let best: { rec: PartRecord; n: number } | undefined;
    for (const v of votes.values()) if (best === undefined || v.n > best.n || (v.n === best.n && v.rec.modTime > best.rec.modTime)) best = v;
    if (best !== undefined && best.n >= k) out.set(num, best.rec);
  }));
  return out;
}

/** The upload's record on this set (ObjectLayer.getMultipartInfo). */
export async function uploadInfo(set: ErasureSet, bucket: string, key: string, uploadId: string): Promise<MultipartUploadInfo> {
  return toUploadInfo(await readUpload(set, bucket, key, uploadId));
}

/** ListParts on this set. */
export async function listParts(
  set: ErasureSet, bucket: string, key: string, uploadId: string, opts: { partNumberMarker: number; maxParts: number },
): Promise<ListPartsResult> {
  const rec = await readUpload(set, bucket, key, uploadId);
  const dir = uploadDir(bucket, key, uploadId);
  const numbers = (await partNumbers(set, dir)).filter((n) => n > opts.partNumberMarker);
  const maxParts = Math.max(0, opts.maxParts);
  // The page's records and one more, which shows whether the listing is truncated; a number without an agreed
  // record (a part being written, or one a failed write left on too few drives) is skipped and the next one read.
  const found: PartRecord[] = [];
  for (let at = 0; at < numbers.length && found.length <= maxParts;) {
    const chunk = numbers.slice(at, at + maxParts + 1 - found.length);
    at += chunk.length;
    const recs = await readPartRecords(set, dir, chunk, rec.k);
    for (const n of chunk) if (recs.has(n)) found.push(recs.get(n)!);
  }
  const page = found.slice(0, maxParts);
  return {
    upload: toUploadInfo(rec),
    parts: page.map(toPartInfo),
    isTruncated: found.length > page.length,
    nextPartNumberMarker: page.length > 0 ? page[page.length - 1]!.number : opts.partNumberMarker,
  };
}

/** CompleteMultipartUpload on this set. */
export async function completeUpload(
  set: ErasureSet, bucket: string, key: string, uploadId: string, parts: readonly CompletePart[], opts: CompleteMultipartOptions = {},
): Promise<ObjectInfo> {
  const rec = await readUpload(set, bucket, key, uploadId);
  const dir = uploadDir(bucket, key, uploadId);
  if (parts.length === 0) throw new InvalidPartError('at least one part must be specified');
  for (let i = 1; i < parts.length; i++) {
    if (parts[i]!.partNumber <= parts[i - 1]!.partNumber) throw new InvalidPartOrderError();
  }
  const stored = await readPartRecords(set, dir, parts.map((p) => p.partNumber), rec.k);
  const chosen: PartRecord[] = [];
  parts.forEach((p, i) => {
    const s = stored.get(p.partNumber);
    const want = p.etag.replace(/^"|"$/g, '').toLowerCase();
    if (s === undefined || s.etag !== want) throw new InvalidPartError(`part ${p.partNumber} was not found or its ETag does not match`);
    if (i < parts.length - 1 && s.size < MIN_PART_SIZE) throw new EntityTooSmallError(p.partNumber);
    chosen.push(s);
  });
  const md5 = createHash('md5');
  for (const p of chosen) md5.update(Buffer.from(p.etag, 'hex'));
  const size = chosen.reduce((a, p) => a + p.size, 0);
  const dataDir = randomUUID();
  const meta: ObjectMeta = {
    versionId: '',
    key,
    size,
    etag: `${md5.digest('hex')}-${chosen.length}`,
    modTime: Date.now(),
    system: { ...rec.system },
    user: { ...rec.user },
    checksums: { ...(opts.checksums ?? {}) },
    partCount: chosen.length,
    erasure: { k: rec.k, m: rec.m, blockSize: rec.blockSize, index: 0, distribution: rec.distribution },
    dataDir,
    parts: chosen.map((p) => ({
      number: p.number, size: p.size, etag: p.etag,
      ...(Object.keys(p.checksums).length > 0 ? { checksums: { ...p.checksums } } : {}),
      ...(p.bitrot !== undefined ? { bitrot: p.bitrot } : {}),
    })),
    inline: null,
  };
  if (rec.tags !== undefined && rec.tags.length > 0) meta.tags = rec.tags;
  if (rec.internal !== undefined) meta.internal = { ...rec.internal };
  const lock = rec.lock ?? toLockMeta(opts.defaultLock);
  if (lock !== undefined) meta.lock = lock;
  const keep = chosen.map((p) => `part.${p.number}`);
  await commitObject(set, bucket, key, meta, set.drives.map(() => true), null, () => ({ srcDataPath: `${dir}/parts`, dataDir, keepFiles: keep }), opts.versioning);
  await set.each((d) => d.deleteSysPath(dir));
  return toObjectInfo(bucket, meta);
}

/** AbortMultipartUpload on this set. */
export async function abortUpload(set: ErasureSet, bucket: string, key: string, uploadId: string): Promise<void> {
  await readUpload(set, bucket, key, uploadId);
  await set.each((d) => d.deleteSysPath(uploadDir(bucket, key, uploadId)));
}

/** Every upload record of `bucket` on this set (one read per upload, from the first drive holding it). */
export async function listSetUploads(set: ErasureSet, bucket: string): Promise<UploadRecord[]> {
  const base = `multipart/${bucket}`;
  const hashes = new Set<string>();
  for (const r of await set.each((d) => d.listSysDir(base))) if (r.ok) for (const h of r.value) hashes.add(h);
  const out: UploadRecord[] = [];
  await Promise.all([...hashes].map(async (h) => {
    const ids = new Set<string>();
    for (const r of await set.each((d) => d.listSysDir(`${base}/${h}`))) if (r.ok) for (const id of r.value) ids.add(id);
    await Promise.all([...ids].filter((id) => UPLOAD_ID_RE.test(id)).map(async (id) => {
      const res = await set.each(async (d) => decodeUploadRecord(await d.readSysFile(`${base}/${h}/${id}/upload.meta`)));
      const ok = res.filter((r) => r.ok);
      if (ok.length >= set.readQuorum && ok[0]?.ok === true) out.push(ok[0].value);
    }));
  }));
  return out;
}
