import { parentPort, receiveMessageOnPort } from 'node:worker_threads';
import { DriveIndex, FLUSH_ENTRIES, type PutItem } from './drive-index.js';
import { isRead, type IndexOp, type IndexReply, type IndexRequest, type OpResult } from './index-protocol.js';

/**
 * The index worker's thread (index-host.ts starts it): it owns the key indexes of the drives its host gave it (one
 * host per device) and does all their I/O synchronously. Every message waiting in its port is taken with the first
 * (receiveMessageOnPort), and each drive's puts among them become one synced write: while a write waits for the disk,
 * the next turns' commits queue up and go together (group commit), with no thread-pool hand-off per write (the
 * twenty-fifth session's probe: 1.25-1.36x main's 4 KiB PUTs; docs/performance.md).
 */

/** Tables are flushed into runs this often (and whenever one holds FLUSH_ENTRIES entries). */
const FLUSH_MS = 500;

const indexes = new Map<string, DriveIndex>();

function indexOf(dir: string): DriveIndex {
  const ix = indexes.get(dir);
  if (ix === undefined) throw Object.assign(new Error(`key index ${dir} is not open`), { code: 'ENOTOPEN' });
  return ix;
}

function failure(err: unknown): OpResult {
  const e = err as NodeJS.ErrnoException;
  return { error: { code: typeof e?.code === 'string' ? e.code : 'EIO', message: String(e?.message ?? err), errno: typeof e?.errno === 'number' ? e.errno : undefined } };
}

/**
 * Applies a drain's requests in order; consecutive puts to a drive are written together. A request of reads only
 * (index-host.ts sends reads apart) is answered as soon as it is applied, before the drain's puts are written and
 * synced, from what the drive held before them: those puts are not acknowledged yet, so a read may order itself before
 * them, as a read that arrived a moment earlier would have. Waiting for their `fsync` made a GET's latency that of
 * other keys' writes (`npm run bench:get -- --mixed`, docs/performance.md, twenty-seventh session). Writes other than
 * puts (deletes, drops) still see every put before them, and a flush the drain calls for waits until every reply is out.
 */
function handle(requests: IndexRequest[]): void {
  for (const ix of indexes.values()) ix.beginTurn();
  const results: OpResult[][] = requests.map((r) => new Array<OpResult>(r.ops.length));
  /** Per drive, the puts not yet written, and per item the op's answer (the replaced records, in its items' order). */
  const pending = new Map<string, { items: PutItem[]; slots: { answer: (Uint8Array | null)[]; n: number; r: number; o: number }[] }>();
  const writePending = (dir: string): void => {
    const p = pending.get(dir);
    if (p === undefined) return;
    pending.delete(dir);
    try {
      const previous = indexOf(dir).put(p.items);
      p.slots.forEach((slot, i) => { slot.answer[slot.n] = previous[i] ?? null; });
    } catch (err) {
      for (const { r, o } of p.slots) results[r]![o] = failure(err);
    }
  };
  const reply = (r: number): void => {
    const answers = results[r]!;
    const transfer = answers.flatMap((x) => ('value' in x ? buffersOf(x.value) : []));
    parentPort!.postMessage({ rid: requests[r]!.rid, results: answers } satisfies IndexReply, transfer);
  };
  const answered = requests.map((req) => req.ops.length > 0 && req.ops.every(isRead));
  requests.forEach((req, r) => {
    req.ops.forEach((op: IndexOp, o) => {
      if (op.op === 'put') {
        let p = pending.get(op.dir);
        if (p === undefined) pending.set(op.dir, (p = { items: [], slots: [] }));
        const answer: (Uint8Array | null)[] = [];
        results[r]![o] = { value: answer };
        op.items.forEach((it, n) => {
          p!.items.push(it);
          p!.slots.push({ answer, n, r, o });
        });
        return;
      }
      if (!isRead(op)) writePending(op.dir);
      try {
        results[r]![o] = { value: apply(op) };
      } catch (err) {
        results[r]![o] = failure(err);
      }
    });
    if (answered[r]) reply(r);
  });
  for (const dir of [...pending.keys()]) writePending(dir);
  requests.forEach((_, r) => { if (!answered[r]) reply(r); });
  for (const ix of indexes.values()) if (ix.tableSize >= FLUSH_ENTRIES) flushOne(ix);
}

/** The ArrayBuffers of answered records, moved to the caller instead of copied (each record owns its memory). */
function buffersOf(value: unknown): ArrayBuffer[] {
  if (value instanceof Uint8Array) return value.byteOffset === 0 && value.byteLength === value.buffer.byteLength ? [value.buffer as ArrayBuffer] : [];
  if (Array.isArray(value)) return value.flatMap(buffersOf);
  if (value !== null && typeof value === 'object' && 'meta' in value) return buffersOf((value as { meta: unknown }).meta);
  return [];
}

function apply(op: Exclude<IndexOp, { op: 'put' }>): unknown {
  switch (op.op) {
    case 'open': {
      const open = indexes.get(op.dir);
      if (open !== undefined && open.linked) return null;
      // A drive wiped and formatted again: the index open on its old files goes, a new one starts.
      if (open !== undefined) closeQuietly(op.dir, open);
      indexes.set(op.dir, new DriveIndex(op.dir, { segmentBytes: op.segmentBytes }));
      return null;
    }
    case 'get':
      return indexOf(op.dir).get(op.volume, op.key);
    case 'delete':
      return indexOf(op.dir).delete(op.volume, op.key);
    case 'children':
      return indexOf(op.dir).children(op.volume, op.dirKey);
    case 'childStates':
      return indexOf(op.dir).childStates(op.volume, op.dirKey, op.names, op.withMeta);
    case 'dropVolume':
      indexOf(op.dir).dropVolume(op.volume);
      return null;
    case 'flush':
      indexOf(op.dir).flush();
      return null;
    case 'close': {
      const ix = indexes.get(op.dir);
      if (ix !== undefined) closeQuietly(op.dir, ix);
      return null;
    }
  }
}

/** Flushes (when its files are still there) and closes an index; it is forgotten whatever fails. */
function closeQuietly(dir: string, ix: DriveIndex): void {
  indexes.delete(dir);
  try {
    if (ix.linked) ix.flush();
  } catch {
    // Its log holds what the table held: the next open replays it.
  }
  try {
    ix.close();
  } catch {
    // Descriptors of removed files: nothing left to keep.
  }
}

function flushOne(ix: DriveIndex): void {
  try {
    ix.flush();
  } catch {
    // Tried again at the next interval; the table and the log keep everything meanwhile.
  }
}

setInterval(() => {
  for (const ix of indexes.values()) {
    if (!ix.linked) continue;
    flushOne(ix);
    try {
      // One segment per interval at most: a collection copies up to half a segment's records, synchronously.
      ix.collect();
    } catch {
      // Tried again at the next interval: nothing is removed before its live records are written again.
    }
  }
}, FLUSH_MS).unref();

parentPort!.on('message', (first: IndexRequest) => {
  const requests = [first];
  for (let m = receiveMessageOnPort(parentPort!); m !== undefined; m = receiveMessageOnPort(parentPort!)) requests.push(m.message as IndexRequest);
  handle(requests);
});
