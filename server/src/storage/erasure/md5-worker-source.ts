import { RESERVED } from './md5-wasm.js';

/** Bytes of one upload hashed per round; bounds the worker's memory at four lanes of this (plus 64 each). */
export const LANE_SLICE = 1024 * 1024;

/**
 * How long (ms) a round waits for uploads bound to the worker that have nothing queued yet, so that their next
 * bytes share the round's SIMD lanes: alone, an upload hashes at ~0.56 GiB/s on a core, four together at ~1.6. Four
 * 64 MiB PUTs send a batch each every ~10 ms: with 2 ms most rounds had one or two lanes, with 10 ms three or four
 * (docs/performance.md, fourteenth session). Bounded so a slow client's upload delays the others by at most this per
 * round; small uploads never wait (md5-offload.ts LANE_MIN_BYTES).
 */
export const LANE_WAIT_MS = 10;

/**
 * The MD5 worker (plain JavaScript, run with `eval`; `workerData.module` is the compiled md5-wasm.ts module).
 * Messages: `{ op: 'update', id, batch, length, rid }` (a transferred ArrayBuffer whose first `length` bytes are the
 * upload's next; answered `{ rid, batch }`, the batch transferred back, once its bytes were taken), `{ op: 'digest',
 * id, rid }` (answered `{ rid, digest }`, ends the state), `{ op: 'drop', id }` (no answer). After an unexpected
 * failure every request of the uploads then known is answered `{ rid, error }`. Messages with `small: true` are
 * hashed by node:crypto as they come. The others are queued and handled in rounds: a round takes up to LANE_SLICE
 * queued bytes of up to four uploads each and hashes them in the lanes of `md5x4` (an upload alone: `md5x1`), and
 * repeats until the queue is empty; a round with fewer than four uploads ready waits up to LANE_WAIT_MS while
 * another upload known to the worker has nothing queued. Updates of one upload are hashed in the order they were
 * posted. The padding (RFC 1321 §3.1–3.2) is added in JavaScript.
 *
 * With `workerData.native` (the path of md5-native.ts's addon) the lanes are the addon's: a round hashes each update
 * where it lies, without copying it into WebAssembly memory first, and answers it once hashed; a block that straddles
 * two updates (or ends one) is gathered into the upload's tail and hashed alone. The addon runs one, two or four
 * streams at a time (md5x1, md5x2, md5x4), each at its own speed (server/native/md5x4.c).
 */
export const MD5_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { memory, md5x1, md5x4 } = new WebAssembly.Instance(workerData.module, {}).exports;
const native = workerData.native === undefined ? null : require(workerData.native);
const LANES16 = new Uint32Array(16);
const EMPTY = Buffer.alloc(0);
const SLICE = ${LANE_SLICE};
const WAIT = ${LANE_WAIT_MS};
const STATE4 = 0;       // four vectors: A, B, C, D of lanes 0-3
const STATE1 = 64;      // A, B, C, D of one stream
const REGION = ${RESERVED};
const STRIDE = SLICE + 128;
const need = REGION + 4 * STRIDE;
if (workerData.native === undefined && memory.buffer.byteLength < need) memory.grow(Math.ceil((need - memory.buffer.byteLength) / 65536));
const heap = new Uint8Array(memory.buffer);
const words = new Uint32Array(memory.buffer);

/** id -> { h: Uint32Array(4), length, tail: Buffer, queue: [{ op, data, rid, at, off }], error } */
const uploads = new Map();
let scheduled = false;
let timer = null;

function state(id) {
  let u = uploads.get(id);
  if (u === undefined) {
    u = { h: Uint32Array.of(0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476), length: 0, tail: Buffer.alloc(0), queue: [] };
    uploads.set(id, u);
  }
  return u;
}

/** Uploads declared small (m.small): hashed by node:crypto as their bytes come, never waiting for lanes. */
const small = new Map();

function smallMessage(m) {
  if (m.op === 'drop') { small.delete(m.id); return; }
  let h = small.get(m.id);
  if (h === undefined) { h = createHash('md5'); small.set(m.id, h); }
  try {
    if (m.op === 'update') {
      h.update(new Uint8Array(m.batch, 0, m.length));
      parentPort.postMessage({ rid: m.rid, batch: m.batch }, [m.batch]);
      return;
    }
    small.delete(m.id);
    parentPort.postMessage({ rid: m.rid, digest: h.digest() });
  } catch (err) {
    small.delete(m.id);
    parentPort.postMessage({ rid: m.rid, error: String(err) });
  }
}

parentPort.on('message', (m) => {
  if (m.small) { smallMessage(m); return; }
  if (m.op === 'drop') {
    const u = uploads.get(m.id);
    uploads.delete(m.id);
    if (u !== undefined) for (const q of u.queue) reply(q, { error: 'upload dropped' });
    return;
  }
  const u = state(m.id);
  if (u.error !== undefined) {
    if (m.op === 'digest') uploads.delete(m.id);
    reply(m, { error: u.error });
    return;
  }
  const at = performance.now();
  if (m.op === 'digest') u.queue.push({ op: 'digest', rid: m.rid, at });
  else u.queue.push({ op: 'update', data: new Uint8Array(m.batch, 0, m.length), rid: m.rid, at, off: 0 });
  if (!scheduled) { scheduled = true; setImmediate(drain); }
});

/** Answers a request; an update hashed in full hands its batch back. */
function reply(q, extra) {
  if (q.op === 'update' && extra.error === undefined) parentPort.postMessage({ rid: q.rid, batch: q.data.buffer }, [q.data.buffer]);
  else parentPort.postMessage({ rid: q.rid, ...extra });
}

/**
 * Copies the upload's tail and its queued update bytes (up to SLICE) to lane region r; returns the bytes placed
 * there. An update whose bytes are all copied is answered: its memory is no longer needed.
 */
function place(u, r) {
  const base = REGION + r * STRIDE;
  heap.set(u.tail, base);
  let n = u.tail.length;
  const end = n + SLICE;
  for (;;) {
    const q = u.queue[0];
    if (q === undefined || q.op !== 'update' || n === end) return n;
    const take = Math.min(end - n, q.data.length - q.off);
    heap.set(q.data.subarray(q.off, q.off + take), base + n);
    n += take;
    q.off += take;
    u.length += take;
    if (q.off < q.data.length) return n;
    u.queue.shift();
    reply(q, {});
  }
}

function single(u, at, blocks) {
  words.set(u.h, STATE1 / 4);
  md5x1(STATE1, at, blocks);
  u.h.set(words.subarray(STATE1 / 4, STATE1 / 4 + 4));
}

function finish(u, q) {
  const tail = u.tail;
  const padded = Buffer.alloc(tail.length < 56 ? 64 : 128);
  tail.copy(padded);
  padded[tail.length] = 0x80;
  const bits = u.length * 8;
  padded.writeUInt32LE(bits >>> 0, padded.length - 8);
  padded.writeUInt32LE(Math.floor(bits / 0x100000000), padded.length - 4);
  if (native !== null) native.md5x1(u.h, padded, padded.length / 64);
  else {
    heap.set(padded, REGION);
    single(u, REGION, padded.length / 64);
  }
  reply(q, { digest: Buffer.from(u.h.buffer, 0, 16) });
}

/**
 * One round over up to four uploads whose next message is an update: the blocks all of them have go through the
 * lanes of md5x4 together, then those of the lanes that still have some, until one lane is left (md5x1).
 */
function round(lanes) {
  const sizes = lanes.map((u, r) => place(u, r));
  const blocks = sizes.map((n) => Math.floor(n / 64));
  const done = blocks.map(() => 0);
  for (;;) {
    const active = [];
    for (let r = 0; r < lanes.length; r++) if (done[r] < blocks[r]) active.push(r);
    if (active.length === 0) break;
    const at = (r) => REGION + r * STRIDE + 64 * done[r];
    if (active.length === 1) {
      const r = active[0];
      single(lanes[r], at(r), blocks[r] - done[r]);
      done[r] = blocks[r];
      break;
    }
    const n = Math.min(...active.map((r) => blocks[r] - done[r]));
    const lane = (i) => active[Math.min(i, active.length - 1)];
    for (let i = 0; i < 4; i++) for (let w = 0; w < 4; w++) words[STATE4 / 4 + 4 * w + i] = lanes[lane(i)].h[w];
    md5x4(STATE4, at(lane(0)), at(lane(1)), at(lane(2)), at(lane(3)), n);
    active.forEach((r, i) => { for (let w = 0; w < 4; w++) lanes[r].h[w] = words[STATE4 / 4 + 4 * w + i]; });
    for (const r of active) done[r] += n;
  }
  lanes.forEach((u, r) => {
    const base = REGION + r * STRIDE;
    u.tail = Buffer.from(heap.subarray(base + 64 * blocks[r], base + sizes[r]));
  });
}

/**
 * Brings the upload to a whole block at the head of its first update (true), gathering bytes into its tail where a
 * block straddles updates and answering the updates used up; false when its queue has no update bytes left to hash.
 */
function prepare(u) {
  for (;;) {
    const q = u.queue[0];
    if (q === undefined || q.op !== 'update') return false;
    const rest = q.data.length - q.off;
    if (u.tail.length > 0 || rest < 64) {
      const take = Math.min(64 - u.tail.length, rest);
      u.tail = Buffer.concat([u.tail, q.data.subarray(q.off, q.off + take)]);
      q.off += take;
      u.length += take;
      if (u.tail.length === 64) { native.md5x1(u.h, u.tail, 1); u.tail = EMPTY; }
    }
    if (q.off === q.data.length) { u.queue.shift(); reply(q, {}); continue; }
    if (u.tail.length === 0) return true;
  }
}

/** round() with the addon: up to SLICE bytes of each upload, hashed where they lie (see the module comment). */
function nativeRound(lanes) {
  const budget = lanes.map(() => SLICE / 64);
  for (;;) {
    const active = [];
    for (let r = 0; r < lanes.length; r++) if (budget[r] > 0 && prepare(lanes[r])) active.push(r);
    if (active.length === 0) return;
    let n = Infinity;
    for (const r of active) { const q = lanes[r].queue[0]; n = Math.min(n, budget[r], Math.floor((q.data.length - q.off) / 64)); }
    const view = (r) => { const q = lanes[r].queue[0]; return q.data.subarray(q.off); };
    if (active.length === 1) native.md5x1(lanes[active[0]].h, view(active[0]), n);
    else {
      // Two streams run as two (md5x2: two chains in general-purpose registers), three as four with one repeated.
      const lane = (i) => active[Math.min(i, active.length - 1)];
      for (let i = 0; i < 4; i++) for (let w = 0; w < 4; w++) LANES16[4 * w + i] = lanes[lane(i)].h[w];
      if (active.length === 2) native.md5x2(LANES16, view(lane(0)), view(lane(1)), n);
      else native.md5x4(LANES16, view(lane(0)), view(lane(1)), view(lane(2)), view(lane(3)), n);
      active.forEach((r, i) => { for (let w = 0; w < 4; w++) lanes[r].h[w] = LANES16[4 * w + i]; });
    }
    for (const r of active) {
      const u = lanes[r];
      const q = u.queue[0];
      q.off += 64 * n;
      u.length += 64 * n;
      budget[r] -= n;
      if (q.off === q.data.length) { u.queue.shift(); reply(q, {}); }
    }
  }
}

function drain() {
  scheduled = false;
  if (timer !== null) { clearTimeout(timer); timer = null; }
  try {
    for (;;) {
      const ready = [];
      let idle = 0;
      let oldest = Infinity;
      for (const [id, u] of uploads) {
        let q = u.queue[0];
        // Empty updates answered first, so that what follows them (a digest) is seen in this pass: leaving it for a
        // later pass hung the digest when no other upload was ready and no message came (fourteenth session).
        while (q !== undefined && q.op === 'update' && q.data.length === q.off) { u.queue.shift(); reply(q, {}); q = u.queue[0]; }
        if (q === undefined) { idle++; continue; }
        if (q.op === 'digest') { uploads.delete(id); finish(u, q); continue; }
        ready.push(u);
        oldest = Math.min(oldest, q.at);
      }
      if (ready.length === 0) return;
      const wait = oldest + WAIT - performance.now();
      if (ready.length < 4 && idle > 0 && wait > 0) { timer = setTimeout(drain, wait); return; }
      for (let i = 0; i < ready.length; i += 4) (native !== null ? nativeRound : round)(ready.slice(i, i + 4));
    }
  } catch (err) {
    // Every upload's state is suspect now: each answers this error to what it has queued and to what comes next.
    for (const u of uploads.values()) {
      u.error = String(err);
      for (const q of u.queue) reply(q, { error: u.error });
      u.queue = [];
    }
  }
}
`;
