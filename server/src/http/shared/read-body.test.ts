import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { BodyTooLargeError, readBodyCapped } from './read-body.js';

test('readBodyCapped returns the whole body when under the cap', async () => {
  const body = await readBodyCapped(Readable.from([Buffer.from('ab'), Buffer.from('cd')]), 4);
  assert.equal(body.toString(), 'abcd');
});

test('readBodyCapped fails with BodyTooLargeError once the cap is exceeded', async () => {
  await assert.rejects(
    readBodyCapped(Readable.from([Buffer.from('abc'), Buffer.from('de')]), 4),
    (err: unknown) => err instanceof BodyTooLargeError && err.limit === 4,
  );
});
