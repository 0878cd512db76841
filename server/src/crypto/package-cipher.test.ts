import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { DecryptError, PACKAGE_SIZE, TAG_SIZE, decryptRange, encryptStream, encryptedSize, planRange, plainSize, type CipherPart } from './package-cipher.js';

async function collect(s: AsyncIterable<Buffer>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of s) out.push(c);
  return Buffer.concat(out);
}

async function encrypt(key: Buffer, plain: Buffer, chunk = 10_000): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (let i = 0; i < plain.length; i += chunk) chunks.push(plain.subarray(i, i + chunk));
  const enc = encryptStream(key);
  return collect(Readable.from(chunks).pipe(enc.stream));
}

test('sizes: encryptedSize and plainSize are inverse at package edges', () => {
  for (const n of [0, 1, PACKAGE_SIZE - 1, PACKAGE_SIZE, PACKAGE_SIZE + 1, 3 * PACKAGE_SIZE, 5 * 1024 * 1024 + 7]) {
    assert.equal(plainSize(encryptedSize(n)), n, String(n));
  }
  assert.equal(encryptedSize(0), TAG_SIZE);
  assert.throws(() => plainSize(5), RangeError);
  assert.throws(() => plainSize(0), RangeError);
});

test('encrypts to the predicted size, hides the plaintext, and decrypts whole and by ranges', async () => {
  const key = randomBytes(32);
  const plain = Buffer.concat([Buffer.from('PLAINTEXT-MARKER'), randomBytes(3 * PACKAGE_SIZE + 123)]);
  const enc = encryptStream(key);
  const cipher = await collect(Readable.from([plain]).pipe(enc.stream));
  assert.equal(cipher.length, encryptedSize(plain.length));
  assert.equal(cipher.indexOf(Buffer.from('PLAINTEXT-MARKER')), -1);
  assert.deepEqual(enc.plainMd5(), createHash('md5').update(plain).digest());
  assert.equal(enc.plainLength(), plain.length);
  const parts: CipherPart[] = [{ key, cipherSize: cipher.length }];
  for (const [s, e] of [[0, plain.length - 1], [0, 0], [PACKAGE_SIZE - 1, PACKAGE_SIZE], [PACKAGE_SIZE * 2 + 5, plain.length - 1], [100, 200]] as const) {
    const plan = planRange(parts, s, e);
    const slice = cipher.subarray(plan.cipherStart, plan.cipherEnd + 1);
    assert.ok((await collect(decryptRange(Readable.from([slice]), plan))).equals(plain.subarray(s, e + 1)), `${s}-${e}`);
  }
});

test('multipart objects decrypt across part boundaries; an empty object is one empty package', async () => {
  const keys = [randomBytes(32), randomBytes(32)];
  const plains = [randomBytes(PACKAGE_SIZE * 2), randomBytes(1000)];
  const ciphers = await Promise.all(plains.map((p, i) => encrypt(keys[i]!, p)));
  const parts = ciphers.map((c, i) => ({ key: keys[i]!, cipherSize: c.length }));
  const all = Buffer.concat(ciphers);
  const whole = Buffer.concat(plains);
  for (const [s, e] of [[0, whole.length - 1], [PACKAGE_SIZE * 2 - 10, PACKAGE_SIZE * 2 + 10], [PACKAGE_SIZE * 2 + 1, PACKAGE_SIZE * 2 + 1]] as const) {
    const plan = planRange(parts, s, e);
    assert.ok((await collect(decryptRange(Readable.from([all.subarray(plan.cipherStart, plan.cipherEnd + 1)]), plan))).equals(whole.subarray(s, e + 1)));
  }
  const empty = await encrypt(randomBytes(32), Buffer.alloc(0));
  assert.equal(empty.length, TAG_SIZE);
});

test('a wrong key, a changed byte or a dropped final package is a DecryptError', async () => {
  const key = randomBytes(32);
  const plain = randomBytes(PACKAGE_SIZE * 2);
  const cipher = await encrypt(key, plain);
  const plan = planRange([{ key: randomBytes(32), cipherSize: cipher.length }], 0, plain.length - 1);
  await assert.rejects(collect(decryptRange(Readable.from([cipher]), plan)), DecryptError);
  const flipped = Buffer.from(cipher);
  flipped[10] = flipped[10]! ^ 1;
  await assert.rejects(collect(decryptRange(Readable.from([flipped]), planRange([{ key, cipherSize: cipher.length }], 0, 5))), DecryptError);
  // Claiming the object ends after the first package: that package was not sealed as final.
  const cut = cipher.subarray(0, PACKAGE_SIZE + TAG_SIZE);
  await assert.rejects(collect(decryptRange(Readable.from([cut]), planRange([{ key, cipherSize: cut.length }], 0, 10))), DecryptError);
});

test('the check hook errors the stream before the final package', async () => {
  const enc = encryptStream(randomBytes(32), () => { throw new Error('bad digest'); });
  await assert.rejects(collect(Readable.from([Buffer.from('abc')]).pipe(enc.stream)), /bad digest/);
});
