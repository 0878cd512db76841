/**
 * `npm run bench:index -- --store runs`: the leanest key index this project could write in JavaScript, measured in the
 * bench:index harness beside today's files and SQLite (issue 9 point 2; docs/performance.md, twenty-fourth session).
 * The twenty-fourth session's probe put 16-byte pointers in the twenty-third session's record store and found that
 * its per-record work (a table entry, runs written and merged with each id decoded to a string, bloom hashes computed
 * again at every merge) cost about what the per-key files did. This worker keeps what a store needs and nothing more,
 * so that its CPU per record says whether any such index can pay for itself here:
 *
 * - the batch's records appended to a log with one O_DSYNC write (group commit, as the commit log), and each key's
 *   place in it (offset, length) put in an in-memory table keyed by the id's bytes read as latin1 (string order is
 *   then byte order, which is S3's listing order);
 * - every FLUSH_MS the table written as a sorted run: blocks of ~4 KiB of entries `u16 id length, u32 h1, u32 h2, id,
 *   f64 offset, u32 length`, synced; the run's block index (first id of each block) and bloom filter (10 bits per id,
 *   k = 7 from h1 + i·h2, CRC32C of the id with two seeds) kept in memory;
 * - size-tiered merges of four runs: ids compared in place (`Buffer.compare` with ranges: no string, no slice), entries
 *   copied as bytes, the bloom filter rebuilt from the stored hashes (nothing hashed twice);
 * - a point read: the table, then the runs newest first (bloom, block index, one block read), then the value read from
 *   the log.
 *
 * `--store log` runs the same worker without the table (nothing indexed, nothing to read back): the floor, what the log
 * append and the hand-offs cost alone.
 *
 * Plain JavaScript in a string (an eval worker, as the harness's others): the bench runs under tsx, which worker
 * threads do not inherit.
 */
export const RUNS_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { crc32c } = require(workerData.crc);
const root = workerData.path;
fs.mkdirSync(root, { recursive: true });
const logPath = root + '/values.log';
const log = fs.openSync(logPath, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND | fs.constants.O_DSYNC);
const logRead = fs.openSync(logPath, 'r');
let logEnd = 0;
const FLUSH_MS = workerData.flushMs ?? 500, BLOCK = 4096, BITS_PER_KEY = 10, K = 7, FAN_IN = 4;
let table = new Map();
let lastFlush = Date.now();
let runs = [];
let runSeq = 0;
const valueBuf = Buffer.allocUnsafe(workerData.record);

function hashes(key) {
  const h1 = crc32c(key) >>> 0;
  return [h1, (crc32c(key, 0x9e3779b9) | 1) >>> 0];
}

// A run under construction: entries appended in order, blocks cut at BLOCK bytes.
function builder(expected) {
  const bits = Math.max(64, expected * BITS_PER_KEY);
  return { parts: [], block: Buffer.allocUnsafe(BLOCK * 2), used: 0, size: 0, firsts: [], offsets: [], lengths: [],
    bloom: new Uint32Array(Math.ceil(bits / 32)), bits, count: 0 };
}
function addBloom(b, h1, h2) {
  for (let i = 0; i < K; i++) { const bit = (h1 + i * h2) % b.bits; b.bloom[bit >>> 5] |= 1 << (bit & 31); }
}
function cut(b) {
  if (b.used === 0) return;
  b.parts.push(Buffer.from(b.block.subarray(0, b.used)));
  b.offsets.push(b.size);
  b.lengths.push(b.used);
  b.size += b.used;
  b.used = 0;
}
// Appends one entry's bytes (src[start, end)), whose id is src[idStart, idEnd).
function append(b, src, start, end, idStart, idEnd, h1, h2) {
  if (b.used > 0 && b.used + (end - start) > BLOCK) cut(b);
  if (b.used === 0) b.firsts.push(src.latin1Slice(idStart, idEnd));
  src.copy(b.block, b.used, start, end);
  b.used += end - start;
  addBloom(b, h1, h2);
  b.count++;
}
function finish(b) {
  cut(b);
  const path = root + '/run-' + String(++runSeq).padStart(6, '0');
  const fd = fs.openSync(path, 'w+');
  fs.writevSync(fd, b.parts);
  fs.fdatasyncSync(fd);
  return { path, fd, size: b.size, count: b.count, firsts: b.firsts, offsets: b.offsets, lengths: b.lengths, bloom: b.bloom, bits: b.bits };
}

function flush() {
  lastFlush = Date.now();
  if (table.size === 0) return;
  const ids = [...table.keys()].sort();
  const b = builder(ids.length);
  const entry = Buffer.allocUnsafe(2 + 8 + 65535 + 12);
  for (const id of ids) {
    const v = table.get(id);
    const n = entry.latin1Write(id, 10);
    const [h1, h2] = hashes(entry.subarray(10, 10 + n));
    entry.writeUInt16LE(n, 0);
    entry.writeUInt32LE(h1, 2);
    entry.writeUInt32LE(h2, 6);
    entry.writeDoubleLE(v[0], 10 + n);
    entry.writeUInt32LE(v[1], 18 + n);
    append(b, entry, 0, 22 + n, 10, 10 + n, h1, h2);
  }
  table = new Map();
  runs.push(finish(b));
  while (runs.length >= FAN_IN && runs[runs.length - FAN_IN].size <= FAN_IN * runs[runs.length - 1].size) merge(runs.length - FAN_IN);
}

// Merges runs[at .. at+FAN_IN) (adjacent, oldest first) into one; on equal ids the newest run's entry wins.
function merge(at) {
  const inputs = runs.slice(at, at + FAN_IN);
  const srcs = inputs.map((r) => { const buf = Buffer.allocUnsafe(r.size); fs.readSync(r.fd, buf, 0, r.size, 0); return { buf, pos: 0 }; });
  const b = builder(inputs.reduce((a, r) => a + r.count, 0));
  for (;;) {
    let best = -1;
    for (let i = srcs.length - 1; i >= 0; i--) {
      const s = srcs[i];
      if (s.pos >= s.buf.length) continue;
      if (best < 0) { best = i; continue; }
      const t = srcs[best];
      const sl = s.buf.readUInt16LE(s.pos), tl = t.buf.readUInt16LE(t.pos);
      const c = s.buf.compare(t.buf, t.pos + 10, t.pos + 10 + tl, s.pos + 10, s.pos + 10 + sl);
      if (c < 0) best = i;
      else if (c === 0) s.pos += 22 + sl; // an older run's entry of the same id: dropped
    }
    if (best < 0) break;
    const s = srcs[best];
    const len = s.buf.readUInt16LE(s.pos);
    append(b, s.buf, s.pos, s.pos + 22 + len, s.pos + 10, s.pos + 10 + len, s.buf.readUInt32LE(s.pos + 2), s.buf.readUInt32LE(s.pos + 6));
    s.pos += 22 + len;
  }
  const out = finish(b);
  runs.splice(at, FAN_IN, out);
  for (const r of inputs) { fs.closeSync(r.fd); fs.unlinkSync(r.path); }
}

function lookup(key) {
  // A view of the key (no copy): its latin1 reading is the table's id, its bytes what the runs compare.
  const k = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  const id = k.latin1Slice();
  const held = table.get(id);
  let at;
  if (held !== undefined) at = held;
  else {
    const [h1, h2] = hashes(k);
    for (let r = runs.length - 1; r >= 0 && at === undefined; r--) {
      const run = runs[r];
      let maybe = true;
      for (let i = 0; i < K && maybe; i++) { const bit = (h1 + i * h2) % run.bits; maybe = (run.bloom[bit >>> 5] & (1 << (bit & 31))) !== 0; }
      if (!maybe) continue;
      let lo = 0, hi = run.firsts.length - 1;
      while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (run.firsts[mid] <= id) lo = mid; else hi = mid - 1; }
      if (run.firsts[lo] > id) continue;
      const blk = Buffer.allocUnsafe(run.lengths[lo]);
      fs.readSync(run.fd, blk, 0, blk.length, run.offsets[lo]);
      for (let p = 0; p < blk.length;) {
        const n = blk.readUInt16LE(p);
        const c = blk.compare(k, 0, k.length, p + 10, p + 10 + n);
        if (c === 0) { at = [blk.readDoubleLE(p + 10 + n), blk.readUInt32LE(p + 18 + n)]; break; }
        if (c > 0) break;
        p += 22 + n;
      }
    }
  }
  if (at === undefined) return 0;
  return fs.readSync(logRead, valueBuf, 0, at[1], at[0]) === at[1] ? 1 : 0;
}

setInterval(() => { if (Date.now() - lastFlush >= FLUSH_MS) flush(); }, Math.max(FLUSH_MS, 10)).unref();
parentPort.on('message', (m) => {
  try {
    if (m.op === 'put') {
      const values = m.items.map((it) => it.v);
      fs.writevSync(log, values);
      let at = logEnd;
      for (const it of m.items) {
        if (workerData.indexed) table.set(Buffer.from(it.k.buffer, it.k.byteOffset, it.k.byteLength).latin1Slice(), [at, it.v.byteLength]);
        at += it.v.byteLength;
      }
      logEnd = at;
      if (Date.now() - lastFlush >= FLUSH_MS) flush();
      parentPort.postMessage({ id: m.id, found: m.items.map(() => 0) });
      return;
    }
    parentPort.postMessage({ id: m.id, found: m.items.map(lookup) });
  } catch (e) { parentPort.postMessage({ id: m.id, error: String(e && e.stack || e) }); }
});
`;
