import assert from 'node:assert/strict';
import { test } from 'node:test';
import { envKeys, generateSecret, mergeEnv, mergeGitignore, randomString } from './secrets.js';

test('secret shapes: 20 upper/digit, 40 alphanumeric, 64 hex', () => {
  assert.match(generateSecret('SVC_ACCESS_KEY'), /^[A-Z0-9]{20}$/);
  assert.match(generateSecret('SVC_SECRET_KEY'), /^[A-Za-z0-9]{40}$/);
  assert.match(generateSecret('SVC_CONSOLE_SESSION_KEY'), /^[0-9a-f]{64}$/);
  assert.notEqual(generateSecret('SVC_SECRET_KEY'), generateSecret('SVC_SECRET_KEY'));
});

test('randomString rejects biased bytes instead of folding them', () => {
  // alphabet of 3: 255 (>= 255 = 256 - 256 % 3) must be skipped, 0,1,2 map to a,b,c.
  const bytes = Buffer.from([255, 0, 255, 1, 2, 255]);
  assert.equal(randomString(3, 'abc', () => bytes), 'abc');
});

test('mergeEnv adds only missing keys and keeps existing lines byte for byte', () => {
  const existing = '# mine\nSVC_ACCESS_KEY=KEEPME\nOTHER=1';
  const m = mergeEnv(existing);
  assert.deepEqual(m.added, ['SVC_SECRET_KEY', 'SVC_CONSOLE_SESSION_KEY']);
  assert.ok(m.text.startsWith(`${existing}\n`));
  assert.deepEqual([...envKeys(m.text)], ['SVC_ACCESS_KEY', 'OTHER', 'SVC_SECRET_KEY', 'SVC_CONSOLE_SESSION_KEY']);
  assert.deepEqual(mergeEnv(m.text), { text: m.text, added: [] });
  assert.deepEqual([...envKeys(mergeEnv(undefined).text)], ['SVC_ACCESS_KEY', 'SVC_SECRET_KEY', 'SVC_CONSOLE_SESSION_KEY']);
});

test('mergeGitignore appends .env, certs/ and acme/ once', () => {
  const first = mergeGitignore('node_modules\n/.env\n');
  assert.deepEqual(first.added, ['certs/', 'acme/']);
  assert.equal(first.text, 'node_modules\n/.env\ncerts/\nacme/\n');
  assert.deepEqual(mergeGitignore(first.text).added, []);
});
