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
  // The plaintext is not readable in the sealed form. (A two-character marker appeared in the random-looking
  // sealed text by chance once in CI; a long one cannot.)
  const marker = 'plaintext-marker-0123456789';
  const other = seal(a.seal, JSON.stringify({ state: marker }));
  assert.ok(!other.includes(marker));
  for (const part of other.split('.')) assert.ok(!Buffer.from(part, 'base64url').includes(marker), 'not merely encoded either');
});
