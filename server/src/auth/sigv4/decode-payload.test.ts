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
