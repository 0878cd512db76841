/** Tests' helpers for the MD5 block functions (md5-wasm.ts, md5-native.ts), which take whole 64-byte blocks. */

/** MD5's initial state A, B, C, D (RFC 1321 §3.3). */
export const MD5_INIT = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];

/** `data` with RFC 1321 §3.1–3.2 padding, so that the block functions give the whole digest. */
export function md5Padded(data: Buffer): Buffer {
  const out = Buffer.alloc((((data.length + 8) >> 6) + 1) * 64);
  data.copy(out);
  out[data.length] = 0x80;
  out.writeUInt32LE((data.length * 8) >>> 0, out.length - 8);
  return out;
}
