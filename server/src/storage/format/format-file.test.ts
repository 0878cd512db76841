import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { decodeFormat, driveFormat, encodeFormat, findDrive } from './format-file.js';
import { CorruptRecordError } from './format-errors.js';

const FIXTURE_V1 = new URL('./testdata/format-v1.json', import.meta.url);

test('version 1 fixture decodes, and re-encodes byte for byte', async () => {
  const bytes = await readFile(FIXTURE_V1);
  const f = decodeFormat(bytes);
  assert.equal(f.deploymentId, '0d9eb6b0-93c2-469e-a7a0-fffea7b4b7c4');
  assert.equal(f.thisDrive, 'b0f0c3a2-7d59-4a50-9a4e-0c1d2e3f4a5b');
  assert.deepEqual(findDrive(f.sets, 'c1e2d3f4-1111-4222-8333-944455566677'), { set: 0, index: 1 });
  assert.deepEqual(encodeFormat(f), bytes);
});

test('unknown versions and malformed files are refused with a typed error', () => {
  assert.throws(() => decodeFormat(Buffer.from('{"version":7}')), /unsupported version 7/);
  assert.throws(() => decodeFormat(Buffer.from('not json')), CorruptRecordError);
  assert.throws(() => decodeFormat(Buffer.from('{"version":1,"format":"svc","deploymentId":"x","thisDrive":"y","sets":[],"distributionAlgo":"HMAC-SHA256-MOD"}')), /bad sets/);
});

test('the "healing" mark of a replacement drive survives a decode and encode; without it the field is absent', async () => {
  const f = decodeFormat(await readFile(FIXTURE_V1));
  assert.equal(f.healing, undefined);
  const marked = decodeFormat(encodeFormat({ ...f, healing: '2026-11-26T03:00:00.000Z' }));
  assert.equal(marked.healing, '2026-11-26T03:00:00.000Z');
  assert.deepEqual(decodeFormat(Buffer.from(JSON.stringify({ ...f, healing: 7 }))).healing, undefined, 'a non-string mark is ignored');
});

test('driveFormat: a replacement is marked, another drive never inherits the reference\'s mark', async () => {
  const reference = { ...decodeFormat(await readFile(FIXTURE_V1)), healing: '2026-11-26T03:00:00.000Z' };
  const plain = driveFormat(reference, 'c1e2d3f4-1111-4222-8333-944455566677', false);
  assert.equal(plain.thisDrive, 'c1e2d3f4-1111-4222-8333-944455566677');
  assert.equal('healing' in plain, false);
  assert.equal(typeof driveFormat(reference, plain.thisDrive, true).healing, 'string');
  assert.equal(reference.healing, '2026-11-26T03:00:00.000Z', 'the reference is not changed');
});
