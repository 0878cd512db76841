import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { KmsConfigError, KmsError, parseKmsSecretKey } from './local-kms.js';
import { customerKek, newObjectKey, partKey, sealKey, unsealKey } from './key-seal.js';

test('SVC_KMS_SECRET_KEY parses name:base64(32 bytes) and refuses anything else', () => {
  const kms = parseKmsSecretKey(`my-key:${randomBytes(32).toString('base64')}`);
  assert.deepEqual(kms.status(), { ready: true, keyId: 'my-key', kind: 'local' });
  for (const bad of ['nokey', `:${randomBytes(32).toString('base64')}`, `k:${randomBytes(16).toString('base64')}`, 'k:not base64!', `bad name:${randomBytes(32).toString('base64')}`]) {
    assert.throws(() => parseKmsSecretKey(bad), KmsConfigError, bad);
  }
});

test('the KMS opens what it sealed, for the same context and key name only', () => {
  const kms = parseKmsSecretKey(`k1:${randomBytes(32).toString('base64')}`);
  const other = parseKmsSecretKey(`k1:${randomBytes(32).toString('base64')}`);
  const secret = newObjectKey();
  const sealed = kms.seal(secret, 'bucket/key');
  assert.deepEqual(kms.unseal('k1', sealed, 'bucket/key'), secret);
  assert.throws(() => kms.unseal('k1', sealed, 'bucket/other'), KmsError);
  assert.throws(() => kms.unseal('k2', sealed, 'bucket/key'), KmsError);
  assert.throws(() => other.unseal('k1', sealed, 'bucket/key'), KmsError);
});

test('customer keys seal object keys; part keys differ per part', () => {
  const customer = randomBytes(32);
  const salt = randomBytes(32);
  const secret = newObjectKey();
  const sealed = sealKey(customerKek(customer, salt), secret, 'b/k');
  assert.deepEqual(unsealKey(customerKek(customer, salt), sealed, 'b/k'), secret);
  assert.equal(unsealKey(customerKek(randomBytes(32), salt), sealed, 'b/k'), undefined);
  assert.equal(unsealKey(customerKek(customer, salt), 'short', 'b/k'), undefined);
  assert.notDeepEqual(partKey(secret, 1), partKey(secret, 2));
});
