import type { ChildState } from '../drive/index.js';
import type { DriveResult } from '../erasure/index.js';
import { decodeObjectRecord, recordWriteId } from '../format/index.js';
import type { ObjectRecord } from '../format/index.js';
import { recordK } from './erasure-set.js';
import type { ErasureSet } from './erasure-set.js';
import { listRecordCache, withoutInlineData } from './list-record-cache.js';
import { hash32 } from './object-name.js';
import type { CachedKey, DriveAnswer, KeyDir, ListRecordCache } from './list-record-cache.js';
import { ObjectNotFoundError } from './storage-errors.js';

/** Answer of {@link readListBatch}, by position in the batch. */
export interface ListBatch {
  /** The key's record at read quorum; null when it has no committed record. */
  records: (ObjectRecord | null)[];
  /** True when the key is also a directory holding deeper keys (or some drive could not tell). */
  children: boolean[];
}

/** Keys of a listing batch read at full quorum at the same time (those the fast path could not settle). */
const LIST_FALLBACK_PARALLEL = 16;

/** Where the rotation of drives asked starts for a batch, from its first name: batches spread over the drives. */
function firstDrive(dirKey: string, names: readonly string[], online: number): number {
  return hash32(names[0] ?? dirKey) % online;
}

/** One asked drive's answer for one key, with a `same` answer resolved from the cache. */
interface Seen {
  /** The record's bytes; absent (or null with a null writeId) when the drive had none to send. */
  meta?: Buffer | null;
  /** Write id when known without decoding (a `same` answer); undefined when `meta` must be looked at. */
  writeId: string | null | undefined;
  children: boolean;
}

function seen(c: ChildState, cached: DriveAnswer | undefined, knownStamp: string | null): Seen | undefined {
  if (c.error !== undefined) return undefined;
  if (c.same !== true) return { meta: c.meta, writeId: c.meta === null ? null : undefined, children: c.children };
  // `same` vouches for the answer that came with the stamp we passed; the entry may have moved on since.
  if (cached === undefined || cached.stamp !== knownStamp) return undefined;
  // The kept answer itself (write id, children; no bytes): no object per key and drive in a warm listing.
  return cached;
}

/**
 * Listing fast path for a batch of child segments `names` of the key directory `dirKey`: one
 * Drive.readChildren call per drive, on only K online drives (chosen per batch). Since a committed
 * version is on at least write quorum (>= K, and K+1 when K == M) drives, K + write quorum > N: any K drives not
 * under heal include a holder of every committed key. So K agreeing answers are the latest committed version, K
 * "no record" answers mean no committed version, and deeper committed keys under a name show on one of the K.
 * Any other key falls back to the full quorum read, as a single read would; without K + 1 drives fit for the
 * fast path, every online drive is asked whether a name has deeper keys. `children[i]` is also true when a drive
 * could not tell (the walk then reads that directory itself).
 * Answers given with a stamp are kept in `cache`, and a key unchanged on a drive since is answered from it.
 */
export async function readListBatch(
  set: ErasureSet, bucket: string, dirKey: string, names: readonly string[], cache: ListRecordCache = listRecordCache,
): Promise<ListBatch> {
  // Drives being healed (fresh or back from an outage) may lack objects: they take no part in the fast path.
  const online = set.drives.flatMap((d, i) => (d.online && !d.lacksObjects ? [i] : []));
  const q = set.readQuorum;
  const mask = set.drives.map(() => false);
  const fast = online.length > q;
  const dir = cache.dir(set, bucket, dirKey);
  const entries: (CachedKey | undefined)[] = fast ? names.map((n) => cache.get(dir, n)) : [];
  if (fast) {
    // The drives holding stamps for most of the batch (a listing after a change has its batches cut elsewhere),
    // else a rotation from the batch's first name.
    const start = firstDrive(dirKey, names, online.length);
    const order = online.map((_, j) => online[(start + j) % online.length]!);
    const held = set.drives.map((_, i) => entries.reduce((n, e) => n + (e?.answers[i] === undefined ? 0 : 1), 0));
    order.sort((a, b) => held[b]! - held[a]!);
    for (let j = 0; j < q; j++) mask[order[j]!] = true;
  }
  const known = set.drives.map((_, i) => (fast ? entries.map((e) => e?.answers[i]?.stamp ?? null) : null));
  const res = await set.each((d, i) => d.readChildren(bucket, dirKey, names, fast, known[i]), fast ? mask : undefined);
  const answered = res.filter((r) => r.ok).length;
  const records: (ObjectRecord | null)[] = names.map(() => null);
  const children: boolean[] = names.map(() => answered < q);
  const slow: number[] = [];
  const asked = mask.flatMap((m, i) => (m ? [i] : []));
  // A plain loop, no closure per key: a warm listing runs this 10,000 times for 10,000 keys.
  for (let j = 0; j < names.length; j++) {
    const entry = entries[j];
    for (let i = 0; i < res.length && !children[j]; i++) {
      const r = res[i]!;
      if (!r.ok) continue;
      const c = r.value[j]!;
      // A drive that could not tell (an error, or `same` for an answer no longer held) counts as "has deeper keys".
      if (c.error !== undefined || (c.same === true ? seen(c, entry?.answers[i], known[i]?.[j] ?? null)?.children !== false : c.children)) {
        children[j] = true;
      }
    }
    if (!fast) {
      slow.push(j);
      continue;
    }
    let first: ObjectRecord | undefined;
    let absent = 0;
    let agree = 0;
    // Every asked drive vouched for the kept answer (`same`): the entry stays as it is (no allocation per key and
    // listing); remember is for the others.
    let allSame = true;
    const writeIds: (string | null)[] = [];
    for (const i of asked) {
      const r = res[i]!;
      const c = r.ok ? r.value[j]! : undefined;
      const v = c === undefined ? undefined : seen(c, entry?.answers[i], known[i]?.[j] ?? null);
      if (v === undefined) break;
      if (c!.same !== true) allSame = false;
      if (v.writeId === null) {
        absent++;
        writeIds[i] = null;
        continue;
      }
      if (first === undefined) {
        if (v.meta === undefined || v.meta === null) {
          // A `same` answer: the record decoded last time, if it is that write.
          const cachedRecord = entry?.record ?? null;
          if (cachedRecord === null || cachedRecord.writeId !== v.writeId) break;
          first = cachedRecord;
        } else {
          try {
            first = decodeObjectRecord(v.meta);
          } catch {
            break;
          }
        }
        writeIds[i] = first.writeId;
        agree++;
        continue;
      }
      // The other answers only need to be the same write: their write id is read without a full decode.
      const id = v.writeId ?? recordWriteId(v.meta!);
      if (id !== first.writeId) break;
      writeIds[i] = id;
      agree++;
    }
    if (absent === q) {
      records[j] = null;
    } else if (first !== undefined && agree === q && recordK(first, set.k) <= agree) {
      records[j] = first;
    } else {
      slow.push(j);
      cache.delete(dir, names[j]!);
      continue;
    }
    if (!(allSame && entry !== undefined)) remember(cache, dir, names[j]!, entry, res, j, writeIds, records[j]!);
  }
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(LIST_FALLBACK_PARALLEL, slow.length) }, async () => {
    while (next < slow.length) {
      const j = slow[next++]!;
      try {
        records[j] = (await set.readQuorumMeta(bucket, dirKey + names[j]!)).record;
      } catch (err) {
        if (!(err instanceof ObjectNotFoundError)) throw err;
      }
    }
  }));
  return { records, children };
}

/** Keeps the stamped answers of key `j` that the fast path settled (`record`: the agreed record or null); not called when every asked drive answered `same` for a kept entry. */
function remember(
  cache: ListRecordCache, dir: KeyDir, name: string, entry: CachedKey | undefined, res: readonly DriveResult<ChildState[]>[], j: number,
  writeIds: readonly (string | null)[], record: ObjectRecord | null,
): void {
  const answers = entry?.answers.slice() ?? [];
  let stamped = false;
  res.forEach((r, i) => {
    if (!r.ok || !(i in writeIds)) return;
    const c = r.value[j]!;
    if (c.same === true) {
      stamped = true;
      return;
    }
    if (typeof c.stamp !== 'string') {
      answers[i] = undefined;
      return;
    }
    answers[i] = { stamp: c.stamp, writeId: writeIds[i]!, children: c.children };
    stamped = true;
  });
  if (!stamped) return;
  let kept: ObjectRecord | null = null;
  if (record !== null) kept = entry?.record?.writeId === record.writeId ? entry.record : withoutInlineData(record);
  cache.set(dir, name, { answers, record: kept });
}
