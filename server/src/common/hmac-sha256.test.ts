import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { HmacSha256, sha256Hex } from './hmac-sha256.js';

/** Deterministic bytes and strings (the high bits of an LCG: its low bits repeat with short periods). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) >>> 16;
}

test('HmacSha256 gives createHmac\'s MAC for keys shorter than, equal to and longer than the block, string and bytes', () => {
  const next = lcg(7);
  for (const keyLength of [0, 1, 20, 32, 63, 64, 65, 100, 200]) {
    const key = Buffer.from(Array.from({ length: keyLength }, () => next() & 0xff));
    const mac = new HmacSha256(key);
    for (const data of ['', 'a', 'AWS4-HMAC-SHA256\n20261128T103600Z\n20261128/us-east-1/s3/aws4_request\n' + 'f'.repeat(64)]) {
      assert.equal(mac.hex(data), createHmac('sha256', key).update(data, 'utf8').digest('hex'), `key ${keyLength}, "${data}"`);
      assert.equal(mac.latin1(data), createHmac('sha256', key).update(data, 'utf8').digest('latin1'));
    }
  }
  const id = 'deployment-ü-1234';
  assert.equal(new HmacSha256(id).hex('k'), createHmac('sha256', id).update('k').digest('hex'));
});

test('HmacSha256 keeps keys apart when used in turn, for messages of any length and any characters', () => {
  const next = lcg(99);
  const keys = [Buffer.from('first key'), Buffer.from('second key, a longer one'), Buffer.alloc(32, 7)];
  const macs = keys.map((k) => new HmacSha256(k));
  const alphabet = ['a', '/', 'é', '€', '😀', '\u0000', 'Z'];
  // Lengths past the scratch buffer (1 KiB + block), past its bound (64 KiB), then short again.
  for (const length of [0, 5, 300, 1000, 1100, 5000, 40_000, 70_000, 3, 2000]) {
    const data = Array.from({ length }, () => alphabet[next() % alphabet.length]).join('');
    for (let i = 0; i < keys.length; i++) {
      assert.equal(macs[i]!.hex(data), createHmac('sha256', keys[i]!).update(data, 'utf8').digest('hex'), `length ${length}, key ${i}`);
    }
  }
});

test('sha256Hex hashes strings as UTF-8 and bytes as they are', () => {
  for (const data of ['', 'abc', 'ü€😀', Buffer.from([0, 1, 2, 255]), new Uint8Array(5000).fill(9)]) {
    assert.equal(sha256Hex(data), createHash('sha256').update(data).digest('hex'));
  }
});
