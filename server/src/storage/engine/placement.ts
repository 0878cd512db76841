import { createHmac } from 'node:crypto';

/**
 * Object placement. MinIO uses siphash(key, deploymentID) mod setCount (REFERENCE.md fact 5);
 * we use HMAC-SHA256 keyed with the deployment id, first 8 bytes as an unsigned integer mod the
 * set count (format DISTRIBUTION_ALGO "HMAC-SHA256-MOD"): node:crypto has no siphash, HMAC is
 * native, keyed (an attacker cannot aim keys at one set without the deployment id) and uniform.
 * Bytes 8..11 pick the rotation of shards over the set's drives, so parity is spread evenly.
 */
export function placementHash(deploymentId: string, key: string): Buffer {
  return createHmac('sha256', deploymentId).update(key, 'utf8').digest();
}

/** Index of the erasure set holding `key`. */
export function setIndexFor(deploymentId: string, key: string, setCount: number): number {
  if (setCount === 1) return 0;
  return Number(placementHash(deploymentId, key).readBigUInt64BE(0) % BigInt(setCount));
}

/** distribution[i] = 1-based shard index stored on drive i (a rotation, as MinIO's hashOrder). */
export function distributionFor(deploymentId: string, key: string, n: number): number[] {
  const start = placementHash(deploymentId, key).readUInt32BE(8) % n;
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(((i - start + n) % n) + 1);
  return out;
}
