import { Transform, type TransformCallback } from 'node:stream';
import { createChecksum, type ChecksumAlgorithm } from '../../common/index.js';
import type { ChecksumValues } from './headers/checksum-headers.js';

/**
 * A pass-through stream that computes checksums of everything flowing through it, for bodies whose
 * checksums the server must compute itself (copies; parts of uploads that declared an algorithm but
 * whose part request carried none). `values()` is valid once the stream has ended.
 */
export function checksumTap(algorithms: readonly ChecksumAlgorithm[]): { stream: Transform; values: () => ChecksumValues } {
  const hashers = algorithms.map((alg) => createChecksum(alg));
  const result: ChecksumValues = {};
  const stream = new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback) {
      for (const h of hashers) h.update(chunk);
      cb(null, chunk);
    },
    flush(cb: TransformCallback) {
      for (const h of hashers) result[h.algorithm] = h.digestBase64();
      cb();
    },
  });
  return { stream, values: () => ({ ...result }) };
}
