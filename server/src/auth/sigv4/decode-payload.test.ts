import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { decodePayload } from './decode-payload.js';
import { verifyRequest } from './verify-request.js';
import { SigV4Error, type SigV4ErrorCode } from './sigv4-errors.js';
import type { DecodedPayload, SigV4Request } from './types.js';
import {
  CHUNKED_PUT, chunkedPutBody, EXAMPLE_ACCESS_KEY, EXAMPLE_SECRET, EXAMPLE_TIME, PUT_OBJECT, PUT_OBJECT_BODY,
} from './aws-examples.fixture.js';

const lookup = async (key: string): Promise<string | undefined> => (key === EXAMPLE_ACCESS_KEY ? EXAMPLE_SECRET : undefined);
const now = new Date(EXAMPLE_TIME.getTime() + 60_000);

/** Feeds `pieces` one by one (each a separate chunk event) from a Readable. */
function source(pieces: Buffer[]): Readable {
  return Readable.from(pieces, { objectMode: false });
}

async function collect(d: DecodedPayload): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of d.stream) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

async function decodeFails(d: DecodedPayload, code: SigV4ErrorCode): Promise<SigV4Error> {
  try {
    await collect(d);
  } catch (err) {
    assert.ok(err instanceof SigV4Error, `expected SigV4Error, got ${String(err)}`);
    assert.equal(err.s3Code, code, err.message);
    return err;
  }
  assert.fail(`expected stream error ${code}`);
}

async function decode(req: SigV4Request, pieces: Buffer[]): Promise<DecodedPayload> {
  const v = await verifyRequest(req, lookup, { now });
  return decodePayload(v, source(pieces), req.headers);
}

test('published chunked upload decodes to 66560 bytes of "a"', async () => {
  const d = await decode(CHUNKED_PUT, [chunkedPutBody()]);
  assert.equal(d.decodedLength, 66560);
  const out = await collect(d);
  assert.equal(out.length, 66560);
  assert.ok(out.equals(Buffer.alloc(66560, 'a')));
  assert.equal(d.checksum(), undefined);
});

test('published chunked upload with one altered data byte fails with SignatureDoesNotMatch', async () => {
  const body = chunkedPutBody();
  body[body.length - 200] = 'b'.charCodeAt(0);
  await decodeFails(await decode(CHUNKED_PUT, [body]), 'SignatureDoesNotMatch');
});

test('published chunked upload cut short fails with IncompleteBody', async () => {
  const body = chunkedPutBody();
  await decodeFails(await decode(CHUNKED_PUT, [body.subarray(0, body.length - 90)]), 'IncompleteBody');
});

test('published PUT example: signed payload hash verified at end', async () => {
  const ok = await decode(PUT_OBJECT, [Buffer.from(PUT_OBJECT_BODY)]);
  assert.equal((await collect(ok)).toString(), PUT_OBJECT_BODY);
  await decodeFails(await decode(PUT_OBJECT, [Buffer.from('Welcome to Amazon S4.')]), 'XAmzContentSHA256Mismatch');
});

/** A lazy source of `total` zero bytes in 16 KiB chunks that counts what it has produced. */
function countingSource(total: number): { stream: Readable; produced: () => number } {
  let produced = 0;
  const stream = new Readable({
    read() {
      if (produced >= total) { this.push(null); return; }
      const n = Math.min(16384, total - produced);
      produced += n;
      this.push(Buffer.alloc(n));
    },
  });
  return { stream, produced: () => produced };
}

/** Resolves once `value()` has not changed for 50 event-loop turns. */
async function settled(value: () => number): Promise<number> {
  let last = -1;
  let stable = 0;
  while (stable < 50) {
    await new Promise((r) => setImmediate(r));
    const v = value();
    stable = v === last ? stable + 1 : 0;
    last = v;
  }
  return last;
}

const EXAMPLE_HASH_OF_ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
const anonymousUnsigned = { anonymous: true as const, payload: 'unsigned' as const };

test('backpressure: an unread decoded stream stops pulling from the body', async () => {
  const total = 64 * 1024 * 1024;
  const src = countingSource(total);
  const d = decodePayload(anonymousUnsigned, src.stream, { 'content-length': String(total) });
  const pulled = await settled(src.produced);
  assert.ok(pulled < 1024 * 1024, `pulled ${pulled} bytes without a reader`);
  let got = 0;
  for await (const c of d.stream) got += (c as Buffer).length;
  assert.equal(got, total);
});

test('a consumer that destroys the decoded stream leaves the body drained, not destroyed', async () => {
  const total = 8 * 1024 * 1024;
  const src = countingSource(total);
  const d = decodePayload(anonymousUnsigned, src.stream, {});
  d.stream.once('data', () => d.stream.destroy());
  const ended = new Promise<void>((resolve) => src.stream.once('end', resolve));
  await ended;
  assert.equal(src.produced(), total);
  assert.equal(src.stream.readableEnded, true);
});

test('a failing body surfaces as IncompleteBody on the decoded stream', async () => {
  const src = new Readable({ read() { this.destroy(new Error('socket hang up')); } });
  const d = decodePayload(anonymousUnsigned, src, {});
  await decodeFails(d, 'IncompleteBody');
});

test('anonymous request with a payload hash: the body is still checked', async () => {
  const v = await verifyRequest({ method: 'PUT', rawPath: '/b/k', rawQuery: '', headers: { host: 'h', 'x-amz-content-sha256': EXAMPLE_HASH_OF_ABC } }, lookup, { now });
  assert.deepEqual(v, { anonymous: true, payload: 'sha256', payloadSha256: EXAMPLE_HASH_OF_ABC });
  assert.equal((await collect(decodePayload(v, source([Buffer.from('abc')]), {}))).toString(), 'abc');
  await decodeFails(decodePayload(v, source([Buffer.from('abd')]), {}), 'XAmzContentSHA256Mismatch');
});
