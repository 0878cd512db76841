/**
 * MD5 (RFC 1321) as a WebAssembly module generated here, byte by byte: one function hashes blocks of
 * one stream (`md5x1`), another hashes four streams at once with 128-bit SIMD, one stream per 32-bit
 * lane (`md5x4`). MD5 cannot be split within a stream (each 64-byte block needs the previous one's
 * state), so one core hashes one stream at ~0.7 GiB/s whatever the code; four independent streams
 * in the four lanes of one vector cost about what one costs, which is what several concurrent PUTs
 * need from the ETag (issue 9: MD5 was ~1.4 s of CPU per GiB PUT). Generating the module keeps
 * the 64 unrolled steps as data (the tables below, from the RFC) instead of a checked-in binary.
 *
 * A step's latency is its cost: each step needs the previous one's result (b). So each step adds the message word
 * and the constant to a (known four steps earlier) first and f(b, c, d) last, and each f combines c and d before b
 * arrives; the order of the stack is the order of the machine code (V8 does not reassociate). md5x1 went from 540
 * to 707 MiB/s (node:crypto's OpenSSL: 707), md5x4 from 1.53 to 2.07 GiB/s over four streams
 * (docs/performance.md, thirty-sixth session).
 *
 * Memory layout (the caller's contract): `md5x1(state, p, n)` reads the state as four little-endian
 * u32 (A, B, C, D) at `state` and updates it with the `n` blocks at `p`. `md5x4(state, p0, p1, p2,
 * p3, n)` reads four vectors at `state` (A of lanes 0–3, then B, C, D) and updates lane i with the
 * `n` blocks at `pi`; it uses 256 bytes of scratch at {@link SCRATCH}. Nothing else is touched.
 */

/** Bytes the module uses for the SIMD path's transposed message block. */
export const SCRATCH = 256;
/** First byte free for the caller (state and data); the scratch ends here. */
export const RESERVED = 512;

/** Per-step shift amounts (RFC 1321 §3.4). */
const S = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
/** The sine table T[i] = floor(2^32 · |sin(i + 1)|) (RFC 1321 §3.4). */
const T = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) >>> 0);

/** Message word used by step i (rounds 1–4 of RFC 1321 §3.4). */
function word(i: number): number {
  if (i < 16) return i;
  if (i < 32) return (5 * i + 1) % 16;
  if (i < 48) return (3 * i + 5) % 16;
  return (7 * i) % 16;
}

function shift(i: number): number {
  return S[(i >> 4) * 4 + (i % 4)]!;
}

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}

function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function section(id: number, body: number[]): number[] {
  return [id, ...uleb(body.length), ...body];
}

function name(s: string): number[] {
  return [...uleb(s.length), ...Buffer.from(s, 'latin1')];
}

const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  get: (i: number) => [0x20, ...uleb(i)],
  set: (i: number) => [0x21, ...uleb(i)],
  tee: (i: number) => [0x22, ...uleb(i)],
  i32: (n: number) => [0x41, ...sleb(n | 0)],
  add: [0x6a], sub: [0x6b], and: [0x71], or: [0x72], xor: [0x73], rotl: [0x77],
  load: (offset: number) => [0x28, 2, ...uleb(offset)],
  store: (offset: number) => [0x36, 2, ...uleb(offset)],
  eqz: [0x45],
  block: [0x02, 0x40], loop: [0x03, 0x40], end: [0x0b],
  brIf: (depth: number) => [0x0d, ...uleb(depth)],
  br: (depth: number) => [0x0c, ...uleb(depth)],
};
/** SIMD opcodes (prefix 0xfd, WebAssembly SIMD proposal, now in the core spec). */
const simd = (code: number, ...imm: number[]) => [0xfd, ...uleb(code), ...imm];
const v = {
  load: (offset: number) => simd(0x00, 4, ...uleb(offset)),
  store: (offset: number) => simd(0x0b, 4, ...uleb(offset)),
  splat: simd(0x11),
  not: simd(0x4d), and: simd(0x4e), or: simd(0x50), xor: simd(0x51), bitselect: simd(0x52),
  load32Zero: (offset: number) => simd(0x5c, 2, ...uleb(offset)),
  load32Lane: (offset: number, lane: number) => simd(0x56, 2, ...uleb(offset), lane),
  // Opcodes above 127 take two LEB bytes: simd() encodes them through uleb().
  shl: simd(0xab), shrU: simd(0xad), add: simd(0xae),
};

/** What the two functions' code differs in; the frame around it (blockFunction) is the same. */
interface Flavour {
  /** Bytes per register in the state memory: 4 (one u32) or 16 (a vector of four lanes). */
  width: number;
  load(offset: number): number[];
  store(offset: number): number[];
  add: number[];
  /** Code run at the start of each block, before the steps. */
  prologue: number[];
  /** Step i of RFC 1321 §3.4 on registers a, b, c, d (the locals this step calls so). */
  step(i: number, a: number, b: number, c: number, d: number): number[];
  /** Code moving the data pointers to the next block. */
  advance: number[];
}

/**
 * A function over `n` blocks (local N) with its state at local 0 (STATE): the state loaded into `regs`, per block the
 * prologue, the 64 steps, the saved state added back and the pointers advanced, and the state stored at the end.
 */
function blockFunction(N: number, regs: readonly number[], saved: readonly number[], f: Flavour): number[] {
  const STATE = 0;
  const code: number[] = [];
  regs.forEach((r, i) => code.push(...op.get(STATE), ...f.load(f.width * i), ...op.set(r)));
  code.push(...op.block, ...op.get(N), ...op.eqz, ...op.brIf(0), ...op.loop);
  saved.forEach((s, i) => code.push(...op.get(regs[i]!), ...op.set(s)));
  code.push(...f.prologue);
  for (let i = 0; i < 64; i++) {
    // The registers rotate: step i writes what RFC 1321 calls a, and the next step's a is the old d.
    const [a, b, c, d] = [0, 1, 2, 3].map((j) => regs[(64 + j - i) % 4]!);
    code.push(...f.step(i, a, b, c, d));
  }
  saved.forEach((s, i) => code.push(...op.get(regs[i]!), ...op.get(s), ...f.add, ...op.set(regs[i]!)));
  code.push(...f.advance);
  code.push(...op.get(N), ...op.i32(1), ...op.sub, ...op.tee(N), ...op.brIf(0), ...op.end, ...op.end);
  regs.forEach((r, i) => code.push(...op.get(STATE), ...op.get(r), ...f.store(f.width * i)));
  code.push(...op.end);
  return code;
}

/** `md5x1(state, p, n)`: locals 3–6 are a, b, c, d; 7–10 the saved state. */
function md5x1Body(): number[] {
  const [P, N] = [1, 2];
  const code = blockFunction(N, [3, 4, 5, 6], [7, 8, 9, 10], {
    width: 4, load: op.load, store: op.store, add: op.add, prologue: [],
    step: (i, a, b, c, d) => {
      // Each f takes b, the previous step's result, last: the parts of c and d are computed while b is not ready yet.
      const f: number[] = i < 16
        ? [...op.get(d), ...op.get(c), ...op.get(d), ...op.xor, ...op.get(b), ...op.and, ...op.xor]
        : i < 32
          ? [...op.get(d), ...op.i32(-1), ...op.xor, ...op.get(c), ...op.and, ...op.get(b), ...op.get(d), ...op.and, ...op.or]
          : i < 48
            ? [...op.get(c), ...op.get(d), ...op.xor, ...op.get(b), ...op.xor]
            : [...op.get(c), ...op.get(d), ...op.i32(-1), ...op.xor, ...op.get(b), ...op.or, ...op.xor];
      return [
        ...op.get(b),
        ...op.get(a), ...op.get(P), ...op.load(4 * word(i)), ...op.add,
        ...op.i32(T[i]!), ...op.add,
        ...f, ...op.add,
        ...op.i32(shift(i)), ...op.rotl,
        ...op.add, ...op.set(a),
      ];
    },
    advance: [...op.get(P), ...op.i32(64), ...op.add, ...op.set(P)],
  });
  return [...vec([[8, I32]]), ...code];
}

/** `md5x4(state, p0, p1, p2, p3, n)`: locals 6–9 are A, B, C, D (v128), 10–13 the saved state, 14 a lane being gathered. */
function md5x4Body(): number[] {
  const [P0, N, TMP] = [1, 5, 14];
  const lanes = [0, 1, 2, 3];
  // Transpose: scratch word w holds message word w of lanes 0–3.
  const prologue: number[] = [];
  for (let w = 0; w < 16; w++) {
    prologue.push(...op.get(P0), ...v.load32Zero(4 * w), ...op.set(TMP));
    for (let lane = 1; lane < 4; lane++) prologue.push(...op.get(P0 + lane), ...op.get(TMP), ...v.load32Lane(4 * w, lane), ...op.set(TMP));
    prologue.push(...op.i32(0), ...op.get(TMP), ...v.store(SCRATCH + 16 * w));
  }
  const k = (i: number): number[] => simd(0x0c, ...lanes.map(() => [T[i]! & 0xff, (T[i]! >>> 8) & 0xff, (T[i]! >>> 16) & 0xff, T[i]! >>> 24]).flat());
  const code = blockFunction(N, [6, 7, 8, 9], [10, 11, 12, 13], {
    width: 16, load: v.load, store: v.store, add: v.add, prologue,
    step: (i, a, b, c, d) => {
      // As in md5x1, b (the previous step's result) enters each f last.
      const f: number[] = i < 16
        ? [...op.get(d), ...op.get(c), ...op.get(d), ...v.xor, ...op.get(b), ...v.and, ...v.xor]
        : i < 32
          ? [...op.get(b), ...op.get(c), ...op.get(d), ...v.bitselect]
          : i < 48
            ? [...op.get(c), ...op.get(d), ...v.xor, ...op.get(b), ...v.xor]
            : [...op.get(c), ...op.get(d), ...v.not, ...op.get(b), ...v.or, ...v.xor];
      const s = shift(i);
      return [
        ...op.get(b),
        ...op.get(a), ...op.i32(0), ...v.load(SCRATCH + 16 * word(i)), ...v.add,
        ...k(i), ...v.add,
        ...f, ...v.add,
        ...op.tee(a), ...op.i32(s), ...v.shl,
        ...op.get(a), ...op.i32(32 - s), ...v.shrU,
        ...v.or,
        ...v.add, ...op.set(a),
      ];
    },
    advance: lanes.flatMap((lane) => [...op.get(P0 + lane), ...op.i32(64), ...op.add, ...op.set(P0 + lane)]),
  });
  return [...vec([[9, V128]]), ...code];
}

/** The module's bytes: memory 0 exported as `memory` (1 page, growable), functions `md5x1` and `md5x4`. */
export function md5WasmBytes(): Uint8Array {
  const types = section(1, vec([
    [0x60, ...vec([[I32], [I32], [I32]]), ...vec([])],
    [0x60, ...vec([[I32], [I32], [I32], [I32], [I32], [I32]]), ...vec([])],
  ]));
  const funcs = section(3, vec([[0], [1]]));
  const memory = section(5, vec([[0x00, 1]]));
  const exports = section(7, vec([
    [...name('memory'), 0x02, 0],
    [...name('md5x1'), 0x00, 0],
    [...name('md5x4'), 0x00, 1],
  ]));
  const bodies = [md5x1Body(), md5x4Body()].map((b) => [...uleb(b.length), ...b]);
  const code = section(10, vec(bodies));
  return Uint8Array.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...types, ...funcs, ...memory, ...exports, ...code]);
}

/** The WebAssembly calls made here (the project's TypeScript libs have no DOM, which declares WebAssembly). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Md5Exports };
}

/** The module's exports (see the module comment for the memory contract). */
export interface Md5Exports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  md5x1(state: number, p: number, n: number): void;
  md5x4(state: number, p0: number, p1: number, p2: number, p3: number, n: number): void;
}

const wasm = (): WasmApi => (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** The module compiled, ready to be cloned to workers (`workerData`) and instantiated there. */
export function compileMd5Module(): object {
  return new (wasm().Module)(md5WasmBytes());
}

/** An instance on this thread (tests and `npm run bench:md5`; the MD5 worker instantiates its own copy). */
export function instantiateMd5(): Md5Exports {
  return new (wasm().Instance)(compileMd5Module(), {}).exports;
}
