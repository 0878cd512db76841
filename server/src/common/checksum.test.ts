import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Crc64Nvme } from '@aws-sdk/crc64-nvme';
import {
  CHECKSUM_ALGORITHMS,
  checksumAlgorithmFromHeaderName,
  checksumByteLength,
  checksumHeaderName,
  combineCompositeChecksum,
  combineFullObjectChecksum,
  computeChecksum,
  createChecksum,
  decodeChecksumValue,
  parseChecksumAlgorithm,
} from './checksum.js';

const CHECK = Buffer.from('123456789');

test('CRC check values of the catalogue ("123456789"), big-endian', () => {
  const hex = (alg: Parameters<typeof computeChecksum>[0]): string => Buffer.from(computeChecksum(alg, CHECK), 'base64').toString('hex');
  assert.equal(hex('CRC32'), 'cbf43926');
  assert.equal(hex('CRC32C'), 'e3069283');
  assert.equal(hex('CRC64NVME'), 'ae8b14860a799888');
  assert.equal(hex('SHA1'), createHash('sha1').update(CHECK).digest('hex'));
  assert.equal(hex('SHA256'), createHash('sha256').update(CHECK).digest('hex'));
});

test('AWS documented value: CRC32 of "Hello World" is ShexVg==', () => {
  assert.equal(computeChecksum('CRC32', Buffer.from('Hello World')), 'ShexVg==');
});

test('incremental updates equal one-shot, for every algorithm and split', () => {
  const data = randomBytes(1000);
  for (const alg of CHECKSUM_ALGORITHMS) {
    const whole = computeChecksum(alg, data);
    for (const split of [0, 1, 7, 8, 9, 500, 999, 1000]) {
      const h = createChecksum(alg);
      h.update(data.subarray(0, split));
      h.update(data.subarray(split));
      assert.equal(h.digestBase64(), whole, `${alg} split ${split}`);
    }
    assert.equal(Buffer.from(whole, 'base64').length, checksumByteLength(alg));
  }
});

test('CRC64NVME agrees with the AWS SDK implementation', async () => {
  for (const n of [0, 1, 15, 16, 17, 4096, 65537]) {
    const data = randomBytes(n);
    const sdk = new Crc64Nvme();
    sdk.update(data);
    assert.equal(computeChecksum('CRC64NVME', data), Buffer.from(await sdk.digest()).toString('base64'), `length ${n}`);
  }
});

test('header-name helpers', () => {
  assert.equal(checksumHeaderName('CRC64NVME'), 'x-amz-checksum-crc64nvme');
  assert.equal(checksumAlgorithmFromHeaderName('X-Amz-Checksum-CRC32C'), 'CRC32C');
  assert.equal(checksumAlgorithmFromHeaderName('x-amz-checksum-type'), undefined);
  assert.equal(checksumAlgorithmFromHeaderName('x-amz-checksum-algorithm'), undefined);
  assert.equal(parseChecksumAlgorithm('sha256'), 'SHA256');
  assert.equal(parseChecksumAlgorithm('md5'), undefined);
});

test('decodeChecksumValue rejects wrong lengths and non-canonical base64', () => {
  assert.ok(decodeChecksumValue('CRC32', 'ShexVg=='));
  assert.equal(decodeChecksumValue('CRC32', 'ShexVg'), undefined);
  assert.equal(decodeChecksumValue('CRC32C', 'AAAAAAAAAAA='), undefined);
  assert.equal(decodeChecksumValue('CRC32', 'She!Vg=='), undefined);
});

test('composite checksum = checksum of the concatenated raw part checksums, suffixed -N', () => {
  const parts = [randomBytes(100), randomBytes(200), randomBytes(3)];
  for (const alg of CHECKSUM_ALGORITHMS) {
    const partSums = parts.map((p) => computeChecksum(alg, p));
    const raw = Buffer.concat(partSums.map((s) => Buffer.from(s, 'base64')));
    assert.equal(combineCompositeChecksum(alg, partSums), `${computeChecksum(alg, raw)}-3`);
  }
  assert.throws(() => combineCompositeChecksum('CRC32', []), RangeError);
  assert.throws(() => combineCompositeChecksum('CRC32', ['nope']), RangeError);
});

test('full-object checksum of parts equals the CRC of the concatenated object', () => {
  for (const alg of ['CRC32', 'CRC32C', 'CRC64NVME'] as const) {
    for (const sizes of [[5], [1, 1], [0, 7], [1000, 0, 33], [65536, 65537, 3, 1]]) {
      const parts = sizes.map((n) => randomBytes(n));
      const whole = computeChecksum(alg, Buffer.concat(parts));
      const combined = combineFullObjectChecksum(alg, parts.map((p) => ({ checksum: computeChecksum(alg, p), size: p.length })));
      assert.equal(combined, whole, `${alg} ${sizes.join('+')}`);
    }
  }
  assert.throws(() => combineFullObjectChecksum('CRC32', []), RangeError);
  assert.throws(() => combineFullObjectChecksum('CRC32', [{ checksum: 'AAAAAA==', size: -1 }]), RangeError);
});
