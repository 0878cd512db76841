import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { distributionFor, setIndexFor } from './placement.js';

/** The placement as first written (format DISTRIBUTION_ALGO "HMAC-SHA256-MOD"): objects on disk depend on it. */
function reference(deploymentId: string, key: string): Buffer {
  return createHmac('sha256', deploymentId).update(key, 'utf8').digest();
}

test('set index and shard rotation are those of HMAC-SHA256-MOD for every key, set count and set size', () => {
  const deployments = ['0b6e1c9a-58f1-4c43-9a7e-1f6b0c7f4d11', 'another-deployment'];
  const keys = ['', 'a', 'photos/2026/11/28/img-0001.jpg', 'ü€😀/x', 'k'.repeat(1024)];
  for (let i = 0; i < 500; i++) keys.push(`obj-${i}/${(i * 2654435761) >>> 0}`);
  for (const id of deployments) {
    for (const key of keys) {
      const h = reference(id, key);
      for (const sets of [1, 2, 3, 7, 16, 31, 100, 1000, 65_521]) {
        assert.equal(setIndexFor(id, key, sets), Number(h.readBigUInt64BE(0) % BigInt(sets)), `${id} ${key} ${sets}`);
      }
      for (const n of [1, 4, 6, 16]) {
        const start = h.readUInt32BE(8) % n;
        assert.deepEqual(distributionFor(id, key, n), Array.from({ length: n }, (_, d) => ((d - start + n) % n) + 1));
      }
    }
  }
});

test('one key in two deployments in turn gets each deployment\'s placement (the last answer is kept per deployment and key)', () => {
  const [a, b] = ['deployment-a', 'deployment-b'];
  for (const key of ['k', 'k', 'other', 'k']) {
    for (const id of [a, b, a]) {
      assert.equal(setIndexFor(id, key, 1000), Number(reference(id, key).readBigUInt64BE(0) % 1000n), `${id} ${key}`);
      assert.equal(distributionFor(id, key, 16)[0], ((16 - (reference(id, key).readUInt32BE(8) % 16)) % 16) + 1);
    }
  }
});
