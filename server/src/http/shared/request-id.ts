import { randomFillSync } from 'node:crypto';

/**
 * Random bytes for ids, drawn from a pool refilled 4 KiB at a time: one randomFillSync per request and id was
 * ~5% of a 4 KiB GET's CPU (issue 9). The ids stay random (not counters), only the syscalls are batched.
 */
const pool = Buffer.allocUnsafe(4096);
let used = pool.length;

function randomSlice(n: number): Buffer {
  if (used + n > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += n;
  return pool.subarray(used - n, used);
}

/**
 * A fresh request id in the shape AWS uses for `x-amz-request-id` (16 upper-case hex characters),
 * so clients and proxies that log it see a familiar value.
 */
export function newRequestId(): string {
  return randomSlice(8).toString('hex').toUpperCase();
}

/**
 * A fresh extended request id for `x-amz-id-2`. AWS sends an opaque base64 string; SDKs surface it as
 * `extendedRequestId`, so it only has to be unique per response.
 */
export function newHostId(): string {
  return randomSlice(24).toString('base64');
}
