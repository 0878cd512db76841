/**
 * A PUT's ETag (the body's MD5) when the encoder hands its written blocks to the MD5 worker instead of copying the body
 * into batches (erasure/encode.ts handToMd5): bodies of one block, of several whole blocks and with a short last
 * block, several at once (the worker hashes uploads side by side in its SIMD lanes), each read back intact; a body of
 * one block still copies its chunks (encode.ts says why).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { handedOverBuffers } from '../erasure/md5-offload.js';
import { sixDrives } from '../../../test/helpers/six-drives.js';

const MiB = 1024 * 1024;
const meta = { system: {}, user: {} };

/** The body as a client sends it: 64 KiB chunks. */
function chunked(body: Buffer): Readable {
  return Readable.from(Array.from({ length: Math.ceil(body.length / 65536) }, (_, i) => body.subarray(i * 65536, (i + 1) * 65536)));
}

test('ETags of bodies of one block, of whole blocks and with a short last block are their MD5, four PUTs at once', async (t) => {
  const { st } = await sixDrives(t);
  const sizes = [MiB, 3 * MiB, 3 * MiB + 5, 9 * MiB + 65_537];
  const bodies = sizes.map((n) => randomBytes(n));
  const before = handedOverBuffers();
  const infos = await Promise.all(bodies.map((b, i) => st.putObject('b', `k${i}`, chunked(b), { size: b.length, metadata: meta })));
  for (const [i, b] of bodies.entries()) {
    assert.equal(infos[i]!.etag, createHash('md5').update(b).digest('hex'), `size ${b.length}`);
    const parts: Buffer[] = [];
    for await (const c of (await st.openObject('b', `k${i}`)).read()) parts.push(c as Buffer);
    assert.ok(Buffer.concat(parts).equals(b), `size ${b.length} read back`);
  }
  // Every block of the multi-block bodies went over whole (3 + 4 + 10); the 1 MiB body's chunks were copied.
  assert.equal(handedOverBuffers() - before, 17);
});
