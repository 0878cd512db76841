import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { FormError, formBoundary, readForm } from './form-parser.js';

const B = '----svcBoundary7MA4YWxkTrZu0gW';

function form(fields: Array<[string, string]>, file: Buffer | undefined, after: Array<[string, string]> = []): Buffer {
  const parts: Buffer[] = [Buffer.from('preamble to ignore\r\n')];
  for (const [k, v] of fields) parts.push(Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  if (file !== undefined) {
    parts.push(Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="file"; filename="a \\"b\\".txt"\r\nContent-Type: text/plain\r\n\r\n`), file, Buffer.from('\r\n'));
  }
  for (const [k, v] of after) parts.push(Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  parts.push(Buffer.from(`--${B}--\r\n`));
  return Buffer.concat(parts);
}

/** The body in chunks of `size` bytes, so boundaries straddle chunk edges. */
async function* chunked(body: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < body.length; i += size) yield body.subarray(i, i + size);
}

async function readAll(s: AsyncIterable<Buffer>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const c of s) out.push(c);
  return Buffer.concat(out);
}

test('formBoundary takes multipart/form-data boundaries only', () => {
  assert.equal(formBoundary(`multipart/form-data; boundary=${B}`), B);
  assert.equal(formBoundary('Multipart/Form-Data; charset=utf-8; boundary="a b"'), 'a b');
  assert.equal(formBoundary('application/x-www-form-urlencoded'), undefined);
  assert.equal(formBoundary('multipart/form-data'), undefined);
  assert.equal(formBoundary(undefined), undefined);
});

test('fields before the file are read, the file streams exactly, fields after it are ignored', async () => {
  const file = Buffer.concat([randomBytes(200_000), Buffer.from(`\r\n--${B.slice(0, 10)}`), randomBytes(1000)]);
  for (const size of [1, 7, 64 * 1024]) {
    if (size === 1 && file.length > 10_000) {
      const small = Buffer.from(`x\r\n--${B.slice(0, 5)}y`);
      const parsed = await readForm(chunked(form([['Key', 'k'], ['policy', 'p']], small), size), B);
      assert.deepEqual(await readAll(parsed.file.stream), small);
      continue;
    }
    const parsed = await readForm(chunked(form([['Key', 'up/${filename}'], ['x-amz-meta-a', 'é']], file, [['late', 'x']]), size), B);
    assert.equal(parsed.fields.get('key'), 'up/${filename}');
    assert.equal(parsed.fields.get('x-amz-meta-a'), 'é');
    assert.equal(parsed.fields.has('late'), false);
    assert.equal(parsed.file.filename, 'a "b".txt');
    assert.equal(parsed.file.contentType, 'text/plain');
    assert.ok((await readAll(parsed.file.stream)).equals(file));
  }
});

test('an empty file is an empty stream', async () => {
  const parsed = await readForm(chunked(form([['key', 'k']], Buffer.alloc(0)), 5), B);
  assert.equal((await readAll(parsed.file.stream)).length, 0);
});

test('bad forms are typed errors: no file, oversized fields, truncated file, nameless part', async () => {
  await assert.rejects(readForm(chunked(form([['key', 'k']], undefined), 3), B), (e: unknown) => e instanceof FormError && e.kind === 'no-file');
  await assert.rejects(readForm(chunked(form([['key', 'x'.repeat(70_000)]], Buffer.from('a')), 1000), B), (e: unknown) => e instanceof FormError && e.kind === 'too-large');
  const truncated = form([['key', 'k']], randomBytes(5000)).subarray(0, 3000);
  const parsed = await readForm(chunked(truncated, 100), B);
  await assert.rejects(readAll(parsed.file.stream), (e: unknown) => e instanceof FormError && e.kind === 'malformed');
  const nameless = Buffer.from(`--${B}\r\nContent-Disposition: form-data\r\n\r\nv\r\n--${B}--\r\n`);
  await assert.rejects(readForm(chunked(nameless, 10), B), (e: unknown) => e instanceof FormError && e.kind === 'malformed');
  await assert.rejects(readForm(chunked(Buffer.from('no boundary at all'), 4), B), (e: unknown) => e instanceof FormError && e.kind === 'malformed');
});
