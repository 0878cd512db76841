import { HmacSha256 } from '../../common/index.js';

/** The deployments' MAC keys (one per process in practice; tests make many, hence the bound). */
const macs = new Map<string, HmacSha256>();
/** The last key's placement hash. */
let last: { deploymentId: string; key: string; bytes: string } | undefined;

/**
 * Object placement. MinIO uses siphash(key, deploymentID) mod setCount (REFERENCE.md fact 5);
 * we use HMAC-SHA256 keyed with the deployment id, first 8 bytes as an unsigned integer mod the
 * set count (format DISTRIBUTION_ALGO "HMAC-SHA256-MOD"): node:crypto has no siphash, HMAC is
 * native, keyed (an attacker cannot aim keys at one set without the deployment id) and uniform.
 * Bytes 8..11 pick the rotation of shards over the set's drives, so parity is spread evenly.
 * Returned as 32 latin1 characters, one per byte: no Buffer made on a GET's path (issue 9).
 */
function placementBytes(deploymentId: string, key: string): string {
  // A request asks twice for one key in a deployment of several sets (its set, then its drives' rotation).
  if (last !== undefined && key === last.key && deploymentId === last.deploymentId) return last.bytes;
  let mac = macs.get(deploymentId);
  if (mac === undefined) {
    if (macs.size >= 64) macs.clear();
    mac = new HmacSha256(deploymentId);
    macs.set(deploymentId, mac);
  }
  last = { deploymentId, key, bytes: mac.latin1(key) };
  return last.bytes;
}

/** Big-endian unsigned 32-bit integer of four latin1 characters from `at`. */
function uint32At(bytes: string, at: number): number {
  return ((bytes.charCodeAt(at) << 24) | (bytes.charCodeAt(at + 1) << 16) | (bytes.charCodeAt(at + 2) << 8)
    | bytes.charCodeAt(at + 3)) >>> 0;
}

/** Index of the erasure set holding `key`. */
export function setIndexFor(deploymentId: string, key: string, setCount: number): number {
  if (setCount === 1) return 0;
  const bytes = placementBytes(deploymentId, key);
  // The first 8 bytes as an unsigned 64-bit integer, mod setCount, in doubles: (hi·2^32 + lo) mod s with each
  // product below 2^53 (s is far below 2^21).
  const hi = uint32At(bytes, 0) % setCount;
  const lo = uint32At(bytes, 4) % setCount;
  return ((hi * (0x1_0000_0000 % setCount)) % setCount + lo) % setCount;
}

/** distribution[i] = 1-based shard index stored on drive i (a rotation, as MinIO's hashOrder). */
export function distributionFor(deploymentId: string, key: string, n: number): number[] {
  const start = uint32At(placementBytes(deploymentId, key), 8) % n;
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(((i - start + n) % n) + 1);
  return out;
}
