import { randomUUID } from 'node:crypto';
import { BitrotWriter } from '../bitrot/index.js';
import type { ShardWriter } from '../drive/index.js';
import { FileNotFoundError } from '../drive/index.js';
import { blockCount, blockLength, chunkLength, fetchBlock } from '../erasure/index.js';
import { encodeObjectRecord, isDeleteMarker } from '../format/index.js';
import type { ObjectRecord, PartMeta, VersionMeta } from '../format/index.js';
import type { ErasureSet, QuorumMeta, QuorumRecord } from './erasure-set.js';
import { partDecoder } from './object-read.js';
import { shardDrives } from './object-write.js';
import { ObjectNotFoundError } from './storage-errors.js';
import { dataDirsOf, versionAt } from './versions.js';
import { assertHeld } from './locker.js';

/**
 * Healing of one object (REFERENCE.md fact 7): the record agreed by read quorum (every version) is
 * rebuilt on every online drive that lacks it, holds another record, or (deep heal) holds a missing
 * or corrupt shard of any version. Rebuilt shards are written to the temp area and committed with
 * the same `renameData` as a PUT, so a drive never exposes a half-written shard file (while a record
 * with several data directories is committed, a version whose directory is not in yet reads as a
 * missing shard there). Runs under the object's lock, from the heal queue only.
 */

/** What a heal did. */
export interface HealResult {
  /** Drive indexes rewritten. */
  healed: number[];
  /** Shard bytes rebuilt onto those drives (data and parity chunks, without bitrot checksums). */
  bytes: number;
}

/** Finds drives whose shards of the agreed version are missing or corrupt (reads everything). */
async function findDamage(set: ErasureSet, bucket: string, q: QuorumMeta, targets: Set<number>): Promise<void> {
  const { meta } = q;
  const byShard = shardDrives(meta.erasure.distribution);
  const parts = meta.dataDir === null ? [{ number: 1, size: meta.size }] : meta.parts;
  for (const part of parts) {
    const { st, shards } = partDecoder(set, bucket, q, part.number, () => undefined);
    try {
      byShard.forEach((i, s) => { if (targets.has(i)) st.bad[s] = true; });
      const blocks = meta.dataDir === null ? 1 : blockCount(part.size, meta.erasure.blockSize);
      for (let b = 0; b < blocks; b++) {
        const len = meta.dataDir === null ? meta.size : blockLength(part.size, meta.erasure.blockSize, b);
        await fetchBlock(st, b, chunkLength(len, meta.erasure.k), true);
      }
      st.bad.forEach((bad, s) => { if (bad) targets.add(byShard[s]!); });
    } finally {
      await shards.close();
    }
  }
}

/**
 * Rebuilds the shards of one object version for `targets`: into `tmpDir/<dataDir>/part.N` on the target drives,
 * or, for an inline version, into the returned per-shard inline buffers.
 */
async function rebuildVersion(
  set: ErasureSet, bucket: string, q: QuorumMeta, targets: number[], tmpDir: string, written: { bytes: number },
): Promise<Buffer[]> {
  const { meta } = q;
  const { k } = meta.erasure;
  const byShard = shardDrives(meta.erasure.distribution);
  const isTarget = set.drives.map((_, i) => targets.includes(i));
  const inline: Buffer[] = [];
  const parts: Pick<PartMeta, 'number' | 'size' | 'bitrot'>[] = meta.dataDir === null ? [{ number: 1, size: meta.size }] : meta.parts;
  for (const part of parts) {
    const { st, shards } = partDecoder(set, bucket, q, part.number, () => undefined);
    byShard.forEach((i, s) => { if (isTarget[i]) st.bad[s] = true; });
    let writers: (ShardWriter | null)[] = [];
    // Rebuilt shard files keep the part's layout: the record, healed as it is, names it.
    let framers: (BitrotWriter | null)[] = [];
    try {
      if (meta.dataDir !== null) {
        const res = await set.each((d) => d.createShardWriter(`${tmpDir}/${meta.dataDir}/part.${part.number}`), isTarget);
        writers = res.map((r) => (r.ok ? r.value : null));
        framers = writers.map((w) => (w === null ? null : new BitrotWriter(w, set.hasher, part.bitrot ?? 'interleaved')));
      }
      const blocks = meta.dataDir === null ? 1 : blockCount(part.size, meta.erasure.blockSize);
      for (let b = 0; b < blocks; b++) {
        const len = meta.dataDir === null ? meta.size : blockLength(part.size, meta.erasure.blockSize, b);
        const chunks = await fetchBlock(st, b, chunkLength(len, k), true);
        await Promise.all(targets.map(async (i) => {
          const s = meta.erasure.distribution[i]! - 1;
          const hash = set.hasher.hash(chunks[s]!);
          written.bytes += chunks[s]!.length;
          if (meta.dataDir === null) inline[s] = Buffer.concat([hash, chunks[s]!]);
          else await framers[i]?.writeChunk(chunks[s]!, hash);
        }));
      }
      await Promise.all(framers.map((f) => f?.finish()));
      await Promise.all(writers.map((w) => w?.close()));
    } catch (err) {
      await Promise.all(writers.map((w) => w?.abort()));
      throw err;
    } finally {
      await shards.close();
    }
  }
  return inline;
}

/**
 * Rebuilds every object version of the agreed record on `targets` and commits the record there: one
 * `renameData` per data directory (each moving one rebuilt directory in, all of them kept), or a single
 * metadata-only commit when every version is inline or a delete marker.
 */
async function rebuild(set: ErasureSet, bucket: string, q: QuorumRecord, targets: number[]): Promise<HealResult> {
  const { record } = q;
  const isTarget = set.drives.map((_, i) => targets.includes(i));
  const tmpDir = `tmp/${randomUUID()}`;
  const inline = new Map<number, Buffer[]>();
  const dirs = dataDirsOf(record.versions);
  const written = { bytes: 0 };
  try {
    for (let j = 0; j < record.versions.length; j++) {
      if (isDeleteMarker(record.versions[j]!)) continue;
      inline.set(j, await rebuildVersion(set, bucket, versionAt(q, j), targets, tmpDir, written));
    }
    const res = await set.each(async (d, i) => {
      const own: ObjectRecord = {
        ...record,
        versions: record.versions.map((v, j): VersionMeta => {
          if (isDeleteMarker(v)) return v;
          const shard = v.erasure.distribution[i]!;
          return { ...v, erasure: { ...v.erasure, index: shard }, inline: v.dataDir === null ? inline.get(j)?.[shard - 1] ?? null : null };
        }),
      };
      const bytes = encodeObjectRecord(own);
      if (dirs.length === 0) return d.renameData(bucket, record.key, bytes, { srcDataPath: null, dataDir: null, keepDataDirs: [] });
      for (const dir of dirs) await d.renameData(bucket, record.key, bytes, { srcDataPath: `${tmpDir}/${dir}`, dataDir: dir, keepDataDirs: dirs });
      return undefined;
    }, isTarget);
    const healed = targets.filter((i) => res[i]!.ok);
    return { healed, bytes: Math.round((written.bytes * healed.length) / targets.length) };
  } finally {
    if (dirs.length > 0) await set.each((d) => d.deleteSysPath(tmpDir), isTarget);
  }
}

/**
 * Heals `key`. Objects below read quorum whose other drives answered "not found" are dangling
 * leftovers of failed writes and are removed (a replacement drive not yet healed does not count: ErasureSet.votesAbsent).
 */
export async function healObject(set: ErasureSet, bucket: string, key: string, deep: boolean): Promise<HealResult> {
  const unlock = await set.locker.lock(`${bucket}/${key}`);
  try {
    const results = await set.readMetas(bucket, key);
    let q: QuorumRecord;
    try {
      q = set.pickQuorum(bucket, key, results);
    } catch (err) {
      if (err instanceof ObjectNotFoundError) {
        const notFound = results.filter((r, i) => !r.ok && r.error instanceof FileNotFoundError && set.votesAbsent(i, r.error)).length;
        if (notFound > set.n - set.readQuorum) await set.each((d) => d.deleteObject(bucket, key), results.map((r) => r.ok));
        return { healed: [], bytes: 0 };
      }
      throw err;
    }
    const targets = new Set<number>();
    set.drives.forEach((d, i) => { if (d.online && q.perDrive[i] === null) targets.add(i); });
    if (deep) {
      for (let j = 0; j < q.record.versions.length; j++) {
        if (!isDeleteMarker(q.record.versions[j]!)) await findDamage(set, bucket, versionAt(q, j), targets);
      }
    }
    if (targets.size === 0) return { healed: [], bytes: 0 };
    assertHeld(unlock, `${bucket}/${key}`);
    const result = await rebuild(set, bucket, q, [...targets].sort((a, b) => a - b));
    if (result.healed.length > 0) set.logger.info(`healed ${bucket}/${key} on ${result.healed.map((i) => set.drives[i]!.drive.endpoint).join(', ')}`);
    return result;
  } finally {
    unlock();
  }
}
