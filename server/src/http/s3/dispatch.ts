import type { FastifyReply } from 'fastify';
import type { S3Context } from './context.js';
import type { S3Operation } from './router.js';
import { createBucket, deleteBucket, getBucketLocation, headBucket, listBuckets } from './operations/bucket.js';
import { getObject, headObject } from './operations/object-get.js';
import { putObject } from './operations/object-put.js';
import { copyObject } from './operations/object-copy.js';
import { deleteObject, deleteObjects } from './operations/object-delete.js';
import { listMultipartUploads, listObjectsV1, listObjectsV2 } from './operations/list.js';
import { uploadPartCopy } from './operations/upload-part-copy.js';
import {
  deleteBucketTagging, deleteObjectTagging, getBucketTagging, getObjectTagging, putBucketTagging, putObjectTagging,
} from './operations/tagging.js';
import { deleteBucketPolicy, getBucketPolicy, getBucketPolicyStatus, putBucketPolicy } from './operations/policy.js';
import { getBucketVersioning, putBucketVersioning } from './operations/versioning.js';
import { listObjectVersions } from './operations/list-versions.js';
import {
  getObjectLegalHold, getObjectLockConfiguration, getObjectRetention, putObjectLegalHold, putObjectLockConfiguration, putObjectRetention,
} from './operations/object-lock.js';
import { deleteBucketLifecycle, getBucketLifecycleConfiguration, putBucketLifecycleConfiguration } from './operations/lifecycle.js';
import { deleteBucketCors, getBucketCors, preflightCors, putBucketCors } from './operations/cors.js';
import {
  abortMultipartUpload, completeMultipartUpload, createMultipartUpload, listParts, uploadPart,
} from './operations/multipart.js';

/** Hands an authorized request (or an unauthenticated CORS preflight) to its operation handler (exhaustive over S3Operation). */
export async function dispatch(ctx: S3Context, op: S3Operation): Promise<FastifyReply> {
  switch (op.op) {
    case 'ListBuckets': return listBuckets(ctx);
    case 'CreateBucket': return createBucket(ctx, op.bucket);
    case 'HeadBucket': return headBucket(ctx, op.bucket);
    case 'DeleteBucket': return deleteBucket(ctx, op.bucket);
    case 'GetBucketLocation': return getBucketLocation(ctx, op.bucket);
    case 'GetBucketTagging': return getBucketTagging(ctx, op.bucket);
    case 'PutBucketTagging': return putBucketTagging(ctx, op.bucket);
    case 'DeleteBucketTagging': return deleteBucketTagging(ctx, op.bucket);
    case 'GetBucketCors': return getBucketCors(ctx, op.bucket);
    case 'PutBucketCors': return putBucketCors(ctx, op.bucket);
    case 'DeleteBucketCors': return deleteBucketCors(ctx, op.bucket);
    case 'PreflightCors': return preflightCors(ctx, op.bucket);
    case 'GetBucketPolicy': return getBucketPolicy(ctx, op.bucket);
    case 'PutBucketPolicy': return putBucketPolicy(ctx, op.bucket);
    case 'DeleteBucketPolicy': return deleteBucketPolicy(ctx, op.bucket);
    case 'GetBucketPolicyStatus': return getBucketPolicyStatus(ctx, op.bucket);
    case 'GetBucketVersioning': return getBucketVersioning(ctx, op.bucket);
    case 'PutBucketVersioning': return putBucketVersioning(ctx, op.bucket);
    case 'GetObjectLockConfiguration': return getObjectLockConfiguration(ctx, op.bucket);
    case 'PutObjectLockConfiguration': return putObjectLockConfiguration(ctx, op.bucket);
    case 'GetBucketLifecycleConfiguration': return getBucketLifecycleConfiguration(ctx, op.bucket);
    case 'PutBucketLifecycleConfiguration': return putBucketLifecycleConfiguration(ctx, op.bucket);
    case 'DeleteBucketLifecycle': return deleteBucketLifecycle(ctx, op.bucket);
    case 'ListObjectsV1': return listObjectsV1(ctx, op.bucket);
    case 'ListObjectsV2': return listObjectsV2(ctx, op.bucket);
    case 'ListMultipartUploads': return listMultipartUploads(ctx, op.bucket);
    case 'DeleteObjects': return deleteObjects(ctx, op.bucket);
    case 'ListObjectVersions': return listObjectVersions(ctx, op.bucket);
    case 'GetObject': return getObject(ctx, op.bucket, op.key, op.versionId);
    case 'HeadObject': return headObject(ctx, op.bucket, op.key, op.versionId);
    case 'PutObject': return putObject(ctx, op.bucket, op.key);
    case 'CopyObject': return copyObject(ctx, op.bucket, op.key, op.source);
    case 'DeleteObject': return deleteObject(ctx, op.bucket, op.key, op.versionId);
    case 'GetObjectTagging': return getObjectTagging(ctx, op.bucket, op.key);
    case 'PutObjectTagging': return putObjectTagging(ctx, op.bucket, op.key);
    case 'DeleteObjectTagging': return deleteObjectTagging(ctx, op.bucket, op.key);
    case 'GetObjectRetention': return getObjectRetention(ctx, op.bucket, op.key, op.versionId);
    case 'PutObjectRetention': return putObjectRetention(ctx, op.bucket, op.key, op.versionId);
    case 'GetObjectLegalHold': return getObjectLegalHold(ctx, op.bucket, op.key, op.versionId);
    case 'PutObjectLegalHold': return putObjectLegalHold(ctx, op.bucket, op.key, op.versionId);
    case 'CreateMultipartUpload': return createMultipartUpload(ctx, op.bucket, op.key);
    case 'UploadPart': return uploadPart(ctx, op.bucket, op.key, op.uploadId, op.partNumber);
    case 'UploadPartCopy': return uploadPartCopy(ctx, op.bucket, op.key, op.uploadId, op.partNumber, op.source);
    case 'CompleteMultipartUpload': return completeMultipartUpload(ctx, op.bucket, op.key, op.uploadId);
    case 'AbortMultipartUpload': return abortMultipartUpload(ctx, op.bucket, op.key, op.uploadId);
    case 'ListParts': return listParts(ctx, op.bucket, op.key, op.uploadId);
    default: return op satisfies never;
  }
}
