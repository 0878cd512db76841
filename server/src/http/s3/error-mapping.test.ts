import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SigV4Error } from '../../auth/index.js';
import {
  BadDigestError, BucketExistsError, BucketNotEmptyError, BucketNotFoundError, EntityTooSmallError, IncompleteBodyError,
  InsufficientReadQuorumError, InsufficientWriteQuorumError, StorageFullError, InvalidBucketNameError, InvalidObjectNameError, InvalidPartError,
  InvalidPartOrderError, ObjectNotFoundError, UploadNotFoundError,
} from '../../storage/index.js';
import { BodyTooLargeError } from '../shared/index.js';
import { toS3Error } from './error-mapping.js';
import { S3Error, type S3ErrorCode } from './s3-error.js';

const table: Array<[Error, S3ErrorCode, number]> = [
  [new BucketNotFoundError('b'), 'NoSuchBucket', 404],
  [new BucketExistsError('b'), 'BucketAlreadyOwnedByYou', 409],
  [new BucketNotEmptyError('b'), 'BucketNotEmpty', 409],
  [new ObjectNotFoundError('b', 'k'), 'NoSuchKey', 404],
  [new UploadNotFoundError('u'), 'NoSuchUpload', 404],
  [new InvalidPartError('p'), 'InvalidPart', 400],
  [new InvalidPartOrderError(), 'InvalidPartOrder', 400],
  [new EntityTooSmallError(1), 'EntityTooSmall', 400],
  [new BadDigestError(), 'BadDigest', 400],
  [new IncompleteBodyError('short'), 'IncompleteBody', 400],
  [new InvalidObjectNameError('key contains NUL'), 'InvalidArgument', 400],
  [new InvalidBucketNameError('b'), 'InvalidBucketName', 400],
  [new InsufficientWriteQuorumError(), 'ServiceUnavailable', 503],
  [new InsufficientReadQuorumError(), 'ServiceUnavailable', 503],
  [new BodyTooLargeError(10), 'MaxMessageLengthExceeded', 400],
  [new SigV4Error('SignatureDoesNotMatch', 'sig'), 'SignatureDoesNotMatch', 403],
  [new SigV4Error('RequestTimeTooSkewed', 'skew'), 'RequestTimeTooSkewed', 403],
  [new SigV4Error('MalformedTrailerError', 'trailer'), 'MalformedTrailerError', 400],
];

for (const [err, code, status] of table) {
  test(`${err.constructor.name} → ${code}`, () => {
    const { error } = toS3Error(err);
    assert.equal(error.code, code);
    assert.equal(error.status, status);
    assert.equal(error.cause, err);
  });
}

test('engine messages never reach clients except for client-written ones', () => {
  assert.equal(toS3Error(new BucketNotFoundError('secret-bucket')).error.message, 'The specified bucket does not exist.');
  assert.equal(toS3Error(new InvalidObjectNameError('key contains NUL')).error.message, 'key contains NUL');
  assert.match(toS3Error(new InsufficientWriteQuorumError('set 3 drive /mnt/x')).error.message, /write quorum lost.*bring drives back online/);
  const full = toS3Error(new StorageFullError('set 3 drive /mnt/x (2 with no space left)'));
  assert.equal(full.error.code, 'ServiceUnavailable');
  assert.match(full.error.message, /^Storage is full: .*free space/);
  assert.doesNotMatch(full.error.message, /mnt/, 'no internals');
});

test('SigV4 errors keep their client-safe message and details', () => {
  const { error, internal } = toS3Error(new SigV4Error('SignatureDoesNotMatch', 'nope', { details: { StringToSign: 'sts' } }));
  assert.equal(error.message, 'nope');
  assert.deepEqual(error.extra, { StringToSign: 'sts' });
  assert.equal(internal, false);
});

test('anything unmapped is InternalError, flagged for the log, without its message', () => {
  for (const err of [new Error('db password is hunter2'), new TypeError('x is undefined'), 'a string', undefined]) {
    const { error, internal } = toS3Error(err);
    assert.equal(error.code, 'InternalError');
    assert.equal(error.status, 500);
    assert.equal(internal, true);
    assert.doesNotMatch(error.message, /hunter2|undefined/);
  }
  const passthrough = new S3Error('NoSuchKey');
  assert.equal(toS3Error(passthrough).error, passthrough);
});
