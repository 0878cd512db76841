import { test } from 'node:test';
import assert from 'node:assert/strict';
import { conditionContext, requiredPermissions, resourceArn } from './authorize.js';
import type { S3Operation } from './router.js';

const permissions: Array<[S3Operation, Array<[string, string, string?]> | undefined]> = [
  [{ op: 'ListBuckets' }, undefined],
  [{ op: 'CreateBucket', bucket: 'b' }, undefined],
  [{ op: 'HeadBucket', bucket: 'b' }, [['b', 's3:ListBucket']]],
  [{ op: 'ListObjectsV2', bucket: 'b' }, [['b', 's3:ListBucket']]],
  [{ op: 'ListMultipartUploads', bucket: 'b' }, [['b', 's3:ListBucketMultipartUploads']]],
  [{ op: 'DeleteBucketCors', bucket: 'b' }, [['b', 's3:PutBucketCORS']]],
  [{ op: 'DeleteBucketTagging', bucket: 'b' }, [['b', 's3:PutBucketTagging']]],
  [{ op: 'PutBucketPolicy', bucket: 'b' }, [['b', 's3:PutBucketPolicy']]],
  [{ op: 'DeleteObjects', bucket: 'b' }, []],
  [{ op: 'GetObject', bucket: 'b', key: 'k' }, [['b', 's3:GetObject', 'k']]],
  [{ op: 'HeadObject', bucket: 'b', key: 'k' }, [['b', 's3:GetObject', 'k']]],
  [{ op: 'UploadPart', bucket: 'b', key: 'k', uploadId: 'u', partNumber: 1 }, [['b', 's3:PutObject', 'k']]],
  [{ op: 'CopyObject', bucket: 'b', key: 'k', source: { bucket: 's', key: 'sk' } }, [['b', 's3:PutObject', 'k'], ['s', 's3:GetObject', 'sk']]],
  [{ op: 'DeleteObjectTagging', bucket: 'b', key: 'k' }, [['b', 's3:DeleteObjectTagging', 'k']]],
  [{ op: 'AbortMultipartUpload', bucket: 'b', key: 'k', uploadId: 'u' }, [['b', 's3:AbortMultipartUpload', 'k']]],
  [{ op: 'ListParts', bucket: 'b', key: 'k', uploadId: 'u' }, [['b', 's3:ListMultipartUploadParts', 'k']]],
];
for (const [op, expected] of permissions) {
  test(`requiredPermissions(${op.op})`, () => {
    const got = requiredPermissions(op)?.map((c) => (c.key === undefined ? [c.bucket, c.action] : [c.bucket, c.action, c.key]));
    assert.deepEqual(got, expected);
  });
}

test('resourceArn names the bucket or the object', () => {
  assert.equal(resourceArn({ bucket: 'b', action: 's3:ListBucket' }), 'arn:aws:s3:::b');
  assert.equal(resourceArn({ bucket: 'b', action: 's3:GetObject', key: 'a/b c' }), 'arn:aws:s3:::b/a/b c');
});

test('conditionContext: source, transport, headers; s3:prefix on listings only, "" when absent', () => {
  const facts = { sourceIp: '127.0.0.1', secure: false, headers: { referer: 'https://site', 'user-agent': 'ua' }, query: { delimiter: '/', 'max-keys': '5' } };
  assert.deepEqual(conditionContext({ op: 'ListObjectsV1', bucket: 'b' }, facts), {
    'aws:sourceip': '127.0.0.1', 'aws:securetransport': 'false', 'aws:referer': 'https://site', 'aws:useragent': 'ua',
    's3:prefix': '', 's3:delimiter': '/', 's3:max-keys': '5',
  });
  assert.deepEqual(conditionContext({ op: 'GetObject', bucket: 'b', key: 'k' }, { ...facts, secure: true, headers: {}, query: { prefix: 'x' } }), {
    'aws:sourceip': '127.0.0.1', 'aws:securetransport': 'true',
  });
});
