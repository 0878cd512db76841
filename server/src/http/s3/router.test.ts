import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCopySource, resolveOperation, type RouteInput, type S3Operation } from './router.js';
import { S3Error, type S3ErrorCode } from './s3-error.js';

function input(method: string, target: string, headers: RouteInput['headers'] = {}): RouteInput {
  const q = target.indexOf('?');
  const rawPath = q === -1 ? target : target.slice(0, q);
  const query: Record<string, string> = {};
  if (q !== -1) for (const [k, v] of new URLSearchParams(target.slice(q + 1))) if (!(k in query)) query[k] = v;
  return { method, rawPath, query, headers };
}

const routes: Array<[string, string, S3Operation, RouteInput['headers']?]> = [
  ['GET', '/', { op: 'ListBuckets' }],
  ['PUT', '/bucket', { op: 'CreateBucket', bucket: 'bucket' }],
  ['PUT', '/bucket/', { op: 'CreateBucket', bucket: 'bucket' }],
  ['HEAD', '/bucket', { op: 'HeadBucket', bucket: 'bucket' }],
  ['DELETE', '/bucket', { op: 'DeleteBucket', bucket: 'bucket' }],
  ['GET', '/bucket?location', { op: 'GetBucketLocation', bucket: 'bucket' }],
  ['GET', '/bucket', { op: 'ListObjectsV1', bucket: 'bucket' }],
  ['GET', '/bucket?prefix=a&delimiter=/', { op: 'ListObjectsV1', bucket: 'bucket' }],
  ['GET', '/bucket?list-type=2', { op: 'ListObjectsV2', bucket: 'bucket' }],
  ['GET', '/bucket?uploads', { op: 'ListMultipartUploads', bucket: 'bucket' }],
  ['POST', '/bucket?delete', { op: 'DeleteObjects', bucket: 'bucket' }],
  ['GET', '/bucket/key', { op: 'GetObject', bucket: 'bucket', key: 'key' }],
  ['GET', '/bucket/key?versionId=null', { op: 'GetObject', bucket: 'bucket', key: 'key', versionId: 'null' }],
  ['DELETE', '/bucket/key?versionId=0a1b2c3d-0000-4000-8000-000000000000', { op: 'DeleteObject', bucket: 'bucket', key: 'key', versionId: '0a1b2c3d-0000-4000-8000-000000000000' }],
  ['GET', '/bucket?versions&prefix=a', { op: 'ListObjectVersions', bucket: 'bucket' }],
  ['GET', '/bucket?versioning', { op: 'GetBucketVersioning', bucket: 'bucket' }],
  ['PUT', '/bucket?versioning', { op: 'PutBucketVersioning', bucket: 'bucket' }],
  ['GET', '/bucket?object-lock', { op: 'GetObjectLockConfiguration', bucket: 'bucket' }],
  ['PUT', '/bucket?object-lock', { op: 'PutObjectLockConfiguration', bucket: 'bucket' }],
  ['GET', '/bucket?lifecycle', { op: 'GetBucketLifecycleConfiguration', bucket: 'bucket' }],
  ['PUT', '/bucket?lifecycle', { op: 'PutBucketLifecycleConfiguration', bucket: 'bucket' }],
  ['DELETE', '/bucket?lifecycle', { op: 'DeleteBucketLifecycle', bucket: 'bucket' }],
  ['GET', '/bucket/key?retention', { op: 'GetObjectRetention', bucket: 'bucket', key: 'key' }],
  ['PUT', '/bucket/key?retention&versionId=null', { op: 'PutObjectRetention', bucket: 'bucket', key: 'key', versionId: 'null' }],
  ['GET', '/bucket/key?legal-hold', { op: 'GetObjectLegalHold', bucket: 'bucket', key: 'key' }],
  ['PUT', '/bucket/key?legal-hold', { op: 'PutObjectLegalHold', bucket: 'bucket', key: 'key' }],
  ['HEAD', '/bucket/a/b/c', { op: 'HeadObject', bucket: 'bucket', key: 'a/b/c' }],
  ['PUT', '/bucket/key', { op: 'PutObject', bucket: 'bucket', key: 'key' }],
  ['DELETE', '/bucket/key', { op: 'DeleteObject', bucket: 'bucket', key: 'key' }],
  ['POST', '/bucket/key?uploads', { op: 'CreateMultipartUpload', bucket: 'bucket', key: 'key' }],
  ['PUT', '/bucket/key?partNumber=3&uploadId=u1', { op: 'UploadPart', bucket: 'bucket', key: 'key', uploadId: 'u1', partNumber: 3 }],
  ['PUT', '/bucket/key?partNumber=10000&uploadId=u1', { op: 'UploadPart', bucket: 'bucket', key: 'key', uploadId: 'u1', partNumber: 10000 }],
  ['POST', '/bucket/key?uploadId=u1', { op: 'CompleteMultipartUpload', bucket: 'bucket', key: 'key', uploadId: 'u1' }],
  ['DELETE', '/bucket/key?uploadId=u1', { op: 'AbortMultipartUpload', bucket: 'bucket', key: 'key', uploadId: 'u1' }],
  ['GET', '/bucket/key?uploadId=u1', { op: 'ListParts', bucket: 'bucket', key: 'key', uploadId: 'u1' }],
  ['PUT', '/bucket/dst', { op: 'CopyObject', bucket: 'bucket', key: 'dst', source: { bucket: 'src', key: 'a b/c' } },
    { 'x-amz-copy-source': '/src/a%20b/c' }],
  // Keys reach the engine literally: no dot-segment removal, no slash merging, %2F stays a slash in the key.
  ['GET', '/bucket/../x', { op: 'GetObject', bucket: 'bucket', key: '../x' }],
  ['GET', '/bucket/a//b/', { op: 'GetObject', bucket: 'bucket', key: 'a//b/' }],
  ['GET', '/bucket//', { op: 'GetObject', bucket: 'bucket', key: '/' }],
  ['GET', '/bucket/a%2Fb%2F..%2Fc', { op: 'GetObject', bucket: 'bucket', key: 'a/b/../c' }],
  ['GET', '/bucket/%E6%97%A5%E6%9C%AC%20key+plus', { op: 'GetObject', bucket: 'bucket', key: '日本 key+plus' }],
  ['PUT', `/bucket/${'k'.repeat(1024)}`, { op: 'PutObject', bucket: 'bucket', key: 'k'.repeat(1024) }],
  ['GET', '/Legacy_Bucket', { op: 'ListObjectsV1', bucket: 'Legacy_Bucket' }],
  ['PUT', '/bucket/key?partNumber=2&uploadId=u1', { op: 'UploadPartCopy', bucket: 'bucket', key: 'key', uploadId: 'u1', partNumber: 2, source: { bucket: 'src', key: 'k' } },
    { 'x-amz-copy-source': 'src/k' }],
  ['GET', '/bucket?tagging', { op: 'GetBucketTagging', bucket: 'bucket' }],
  ['PUT', '/bucket?tagging', { op: 'PutBucketTagging', bucket: 'bucket' }],
  ['DELETE', '/bucket?tagging', { op: 'DeleteBucketTagging', bucket: 'bucket' }],
  ['GET', '/bucket/key?tagging', { op: 'GetObjectTagging', bucket: 'bucket', key: 'key' }],
  ['PUT', '/bucket/key?tagging&versionId=null', { op: 'PutObjectTagging', bucket: 'bucket', key: 'key' }],
  ['DELETE', '/bucket/key?tagging', { op: 'DeleteObjectTagging', bucket: 'bucket', key: 'key' }],
  ['GET', '/bucket?cors', { op: 'GetBucketCors', bucket: 'bucket' }],
  ['PUT', '/bucket?cors', { op: 'PutBucketCors', bucket: 'bucket' }],
  ['DELETE', '/bucket?cors', { op: 'DeleteBucketCors', bucket: 'bucket' }],
  ['OPTIONS', '/bucket', { op: 'PreflightCors', bucket: 'bucket' }],
  ['GET', '/bucket?policy', { op: 'GetBucketPolicy', bucket: 'bucket' }],
  ['PUT', '/bucket?policy', { op: 'PutBucketPolicy', bucket: 'bucket' }],
  ['DELETE', '/bucket?policy', { op: 'DeleteBucketPolicy', bucket: 'bucket' }],
  ['GET', '/bucket?policyStatus', { op: 'GetBucketPolicyStatus', bucket: 'bucket' }],
  ['OPTIONS', '/bucket/a/key?uploads', { op: 'PreflightCors', bucket: 'bucket', key: 'a/key' }],
];

for (const [method, target, expected, headers] of routes) {
  test(`route ${method} ${target.length > 60 ? `${target.slice(0, 60)}…` : target}`, () => {
    assert.deepEqual(resolveOperation(input(method, target, headers)), expected);
  });
}

const failures: Array<[string, string, S3ErrorCode, RouteInput['headers']?]> = [
  ['PUT', '/', 'MethodNotAllowed'],
  ['OPTIONS', '/', 'MethodNotAllowed'],
  ['DELETE', '/', 'MethodNotAllowed'],
  ['PATCH', '/bucket/key', 'MethodNotAllowed'],
  ['POST', '/bucket/key', 'MethodNotAllowed'],
  ['GET', '/bucket/bad%ZZ', 'InvalidURI'],
  ['GET', '/bucket/%FF', 'InvalidURI'],
  ['PUT', '/Bad_Name', 'InvalidBucketName'],
  ['PUT', '/ab', 'InvalidBucketName'],
  ['PUT', '/192.168.1.1', 'InvalidBucketName'],
  ['PUT', '/a..b', 'InvalidBucketName'],
  ['PUT', '/xn--bucket', 'InvalidBucketName'],
  ['PUT', `/${'a'.repeat(64)}`, 'InvalidBucketName'],
  ['GET', '/.../key', 'InvalidBucketName'],
  ['GET', '/%2E%2E/key', 'InvalidBucketName'],
  ['PUT', `/bucket/${'k'.repeat(1025)}`, 'KeyTooLongError'],
  ['PUT', `/bucket/${'é'.repeat(513)}`, 'KeyTooLongError'],
  ['PUT', '/bucket/key?partNumber=0&uploadId=u', 'InvalidArgument'],
  ['PUT', '/bucket/key?partNumber=10001&uploadId=u', 'InvalidArgument'],
  ['PUT', '/bucket/key?partNumber=1.5&uploadId=u', 'InvalidArgument'],
  ['PUT', '/bucket/key?partNumber=1', 'InvalidRequest'],
  ['PUT', '/bucket/key?tagging&versionId=v2', 'InvalidArgument'],
  ['POST', '/bucket/key?tagging', 'MethodNotAllowed'],
  ['PUT', '/bucket/key?tagging&acl', 'NotImplemented'],
  ['GET', '/bucket?website', 'NotImplemented'],
  // Never a DeleteBucket / DeleteObject in disguise.
  ['DELETE', '/bucket?object-lock', 'NotImplemented'],
  ['DELETE', '/bucket/key?retention', 'NotImplemented'],
  ['GET', '/bucket/key?retention&versionId=abc', 'InvalidArgument'],
  ['GET', '/bucket?list-type=3', 'InvalidArgument'],
  ['GET', '/bucket/key?versionId=abc', 'InvalidArgument'],
  ['HEAD', '/bucket/key?versionId=', 'InvalidArgument'],
  ['DELETE', '/bucket/key?versionId=0A1B2C3D-0000-4000-8000-00000000000Z', 'InvalidArgument'],
  ['PUT', '/bucket/key', 'InvalidArgument', { 'x-amz-copy-source': 'nokey' }],
  ['PUT', '/bucket/key?partNumber=1&uploadId=u', 'InvalidArgument', { 'x-amz-copy-source': '/a/' }],
];

for (const [method, target, code, headers] of failures) {
  test(`route ${method} ${target.length > 60 ? `${target.slice(0, 60)}…` : target} → ${code}`, () => {
    assert.throws(() => resolveOperation(input(method, target, headers)), (err: unknown) => err instanceof S3Error && err.code === code);
  });
}

test('parseCopySource accepts the SDK and the legacy forms', () => {
  assert.deepEqual(parseCopySource('src/k%2Fe%3Fy'), { bucket: 'src', key: 'k/e?y' });
  assert.deepEqual(parseCopySource('/src/key?versionId=null'), { bucket: 'src', key: 'key', versionId: 'null' });
  assert.throws(() => parseCopySource('/src/key?versionId=v1'), (e: unknown) => e instanceof S3Error && e.code === 'InvalidArgument');
  assert.deepEqual(parseCopySource('/src/key?versionId=0a1b2c3d-0000-4000-8000-000000000000'),
    { bucket: 'src', key: 'key', versionId: '0a1b2c3d-0000-4000-8000-000000000000' });
  assert.throws(() => parseCopySource('/src/'), (e: unknown) => e instanceof S3Error && e.code === 'InvalidArgument');
});
