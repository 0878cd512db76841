import { createRequire } from 'node:module';
import type { NativeEncode } from './small-parity.js';

/** Tests' direct line to the native codec (@ronomon/reed-solomon), the reference the synchronous encoders must match. */
interface Rs {
  create(k: number, m: number): Buffer;
  encode(ctx: Buffer, sources: number, targets: number, buffer: Buffer, bufferOffset: number, bufferSize: number,
    parity: Buffer, parityOffset: number, paritySize: number, cb: (err?: Error) => void): void;
}
const RS = createRequire(import.meta.url)('@ronomon/reed-solomon') as Rs;

/** The native codec's encode of all parity from all data, as ErasureCodec calls it, and its word size. */
export function codecEncode(k: number, m: number): { w: number; encode: NativeEncode } {
  const ctx = RS.create(k, m);
  const sources = (1 << k) - 1;
  const targets = ((1 << (k + m)) - 1) & ~sources;
  return {
    w: ctx[0]!,
    encode: (data, parity, len) => new Promise((resolve, reject) => {
      RS.encode(ctx, sources, targets, data, 0, k * len, parity, 0, m * len, (err) => (err ? reject(err) : resolve()));
    }),
  };
}

/** The erasure layouts svc makes (REFERENCE.md parity defaults up to 16 drives per set), and odd ones. */
export const LAYOUTS: [number, number][] = [[1, 1], [2, 1], [2, 2], [3, 1], [3, 2], [4, 2], [5, 3], [6, 2], [7, 3], [8, 4], [10, 6], [12, 4], [14, 2]];
