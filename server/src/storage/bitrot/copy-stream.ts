import { randomBytes } from 'node:crypto';
import { loadAddon } from '../../common/index.js';
import type { BitrotStream } from './stream.js';

/**
 * Bitrot streams of the C addon server/native/bitrot.c: the same HighwayHash-256 as highwayhasher, with `copyIn`,
 * which stores a piece of the body in the erasure block and hashes it in one pass (each 32 bytes loaded once). The
 * encoder used to copy a piece and then hash it from the block: ~10–16 ms of the event loop per 64 MiB object against
 * ~6.5 (docs/performance.md, thirty-eighth session).
 */

interface BitrotAddon {
  /** AVX2 is there; when false the functions throw. */
  supported: boolean;
  stateBytes: number;
  init(state: Uint8Array, key: Uint8Array): void;
  append(state: Uint8Array, data: Uint8Array): void;
  copyIn(state: Uint8Array, src: Uint8Array, dst: Uint8Array): void;
  digest(state: Uint8Array, out: Uint8Array): void;
}

/** A stream of a hash that only appends (highwayhasher's): `copyIn` copies the piece, then appends the copy. */
export function copyingStream(inner: { append(data: Uint8Array): void; digest(): Buffer }): BitrotStream {
  return {
    append: (data) => inner.append(data),
    copyIn: (src, dst) => {
      dst.set(src);
      inner.append(dst.subarray(0, src.length));
    },
    digest: () => inner.digest(),
  };
}

/** The streams made here (tests ask whether the hasher hands them out). */
const made = new WeakSet<BitrotStream>();

/** Whether `stream` is one of the addon's. */
export function isAddonStream(stream: BitrotStream): boolean {
  return made.has(stream);
}

function addonStream(addon: BitrotAddon, key: Uint8Array): BitrotStream {
  const state = new Uint8Array(addon.stateBytes);
  addon.init(state, key);
  const stream: BitrotStream = {
    append: (data) => addon.append(state, data),
    copyIn: (src, dst) => addon.copyIn(state, src, dst),
    digest: () => {
      const out = Buffer.allocUnsafe(32);
      addon.digest(state, out);
      return out;
    },
  };
  made.add(stream);
  return stream;
}

/**
 * A factory of the addon's streams for `key`, once they gave `reference`'s digests (the hash everything else uses)
 * for data cut in pieces of every size around the 32-byte packet, copied and appended; undefined where the addon is
 * not built, lacks AVX2, or did not match (highwayhasher's streams are used then).
 */
export function addonStreams(key: Uint8Array, reference: (data: Uint8Array) => Uint8Array): (() => BitrotStream) | undefined {
  const addon = loadAddon('bitrot')?.exports as BitrotAddon | undefined;
  if (addon === undefined || !addon.supported) return undefined;
  const data = randomBytes(70_001);
  for (const cut of [1, 7, 31, 32, 33, 64, 1000, 4096 + 5, 70_001]) {
    const s = addonStream(addon, key);
    const copy = Buffer.alloc(data.length);
    for (let off = 0, i = 0; off < data.length; off += cut, i++) {
      const piece = data.subarray(off, Math.min(off + cut, data.length));
      if (i % 2 === 0) s.copyIn(piece, copy.subarray(off, off + piece.length));
      else {
        copy.set(piece, off);
        s.append(piece);
      }
    }
    if (!copy.equals(data) || !s.digest().equals(Buffer.from(reference(data)))) return undefined;
  }
  return () => addonStream(addon, key);
}
