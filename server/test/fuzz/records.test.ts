/**
 * Fuzzing the on-disk record decoders (issue 10 Must show 3): random bytes, and valid records with bit flips, bytes
 * cut off or spliced in. A decoder returns a record the engine can re-encode, or throws CorruptRecordError — a corrupt
 * xl.meta on one drive must never crash the node (the other drives' quorum decides, and the drive is healed).
 */
import { test } from 'node:test';
import {
  CorruptRecordError, decodeBucketRecord, decodeFormat, decodeObjectRecord, decodePartRecord, decodeUploadRecord, encodeBucketRecord,
  encodeFormat, encodeObjectRecord, encodePartRecord, encodeUploadRecord,
} from '../../src/storage/format/index.js';
import type { ObjectRecord } from '../../src/storage/format/index.js';
import { fc, fuzz, RUNS, survives } from './harness.js';

const record: ObjectRecord = {
  key: 'a/b', writeId: 'w1', versions: [
    { versionId: 'v2', key: 'a/b', size: 5, etag: 'e', modTime: 1, system: { 'content-type': 'text/plain' }, user: { x: 'y' }, checksums: {},
      erasure: { k: 2, m: 2, blockSize: 1_048_576, index: 1, distribution: [1, 2, 3, 4] }, dataDir: null, parts: [{ number: 1, size: 5, etag: 'e' }],
      inline: Buffer.from('hello'), tags: [{ key: 't', value: 'v' }] },
    { deleteMarker: true, versionId: 'v1', key: 'a/b', modTime: 0 },
  ],
} as unknown as ObjectRecord;

const SAMPLES: [string, Buffer, (b: Uint8Array) => unknown, (v: never) => Buffer][] = [
  ['object record', encodeObjectRecord(record), decodeObjectRecord, encodeObjectRecord as (v: never) => Buffer],
  ['format', encodeFormat({ version: 1, format: 'svc', deploymentId: 'd', thisDrive: 'u1', sets: [['u1', 'u2']], distributionAlgo: 'SIPMOD+PARITY' } as never), decodeFormat, encodeFormat as (v: never) => Buffer],
  ['bucket record', encodeBucketRecord({ created: 1 } as never), decodeBucketRecord, encodeBucketRecord as (v: never) => Buffer],
  ['upload record', encodeUploadRecord({ key: 'k', uploadId: 'u', initiated: 1, metadata: { system: {}, user: {} } } as never), decodeUploadRecord, encodeUploadRecord as (v: never) => Buffer],
  ['part record', encodePartRecord({ number: 1, size: 1, etag: 'e', modTime: 1, checksums: {} } as never), decodePartRecord, encodePartRecord as (v: never) => Buffer],
];

/** Edits of a valid encoding: bit flips, truncation, spliced random bytes — or plain random bytes. */
function damaged(valid: Buffer): fc.Arbitrary<Buffer> {
  return fc.oneof(
    fc.array(fc.tuple(fc.nat(valid.length * 8 - 1)), { minLength: 1, maxLength: 4 }).map((flips) => {
      const b = Buffer.from(valid);
      for (const [bit] of flips) b[bit >> 3]! ^= 1 << (bit & 7);
      return b;
    }),
    fc.nat(valid.length).map((n) => valid.subarray(0, n)),
    fc.tuple(fc.nat(valid.length), fc.uint8Array({ maxLength: 16 })).map(([at, ins]) => Buffer.concat([valid.subarray(0, at), ins, valid.subarray(at)])),
    fc.uint8Array({ maxLength: 300 }).map((u) => Buffer.concat([valid.subarray(0, 6), u])),
    fc.uint8Array({ maxLength: 300 }).map((u) => Buffer.from(u)),
  );
}

for (const [name, valid, decode, encode] of SAMPLES) {
  test(`${name}: ${RUNS} damaged or random inputs, a re-encodable record or CorruptRecordError`, () => {
    fuzz(`record-${name.replace(' ', '-')}`, damaged(valid), (b) => survives((x: Buffer) => { encode(decode(x) as never); }, (e) => e instanceof CorruptRecordError, b),
      (s) => Buffer.from(s, 'base64'));
  });
}
