import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deriveConsoleKeys, seal, unseal } from './console-keys.js';

test('sealed login state opens with the same derived key only, and not once altered', () => {
  const a = deriveConsoleKeys({ accessKey: 'root', secretKey: 'secret-a' });
  const b = deriveConsoleKeys({ accessKey: 'root', secretKey: 'secret-b' });
  const sealed = seal(a.seal, '{"state":"s1"}');
  assert.equal(unseal(deriveConsoleKeys({ accessKey: 'root', secretKey: 'secret-a' }).seal, sealed), '{"state":"s1"}');
  assert.equal(unseal(b.seal, sealed), undefined);
  const parts = sealed.split('.');
  const body = Buffer.from(parts[1]!, 'base64url');
  body[0] = body[0]! ^ 1;
  assert.equal(unseal(a.seal, [parts[0], body.toString('base64url'), parts[2]].join('.')), undefined);
  assert.equal(unseal(a.seal, 'not-sealed'), undefined);
  assert.ok(!sealed.includes('s1'));
});
