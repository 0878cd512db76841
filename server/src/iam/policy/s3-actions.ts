/**
 * S3 action names a bucket policy may name (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html),
 * including actions this server does not implement, so that policies written for AWS are accepted.
 */
export const S3_ACTIONS: readonly string[] = [
  'AbortMultipartUpload', 'BypassGovernanceRetention', 'CreateBucket', 'DeleteBucket', 'DeleteBucketOwnershipControls',
  'DeleteBucketPolicy', 'DeleteBucketWebsite', 'DeleteObject', 'DeleteObjectTagging', 'DeleteObjectVersion',
  'DeleteObjectVersionTagging', 'GetAccelerateConfiguration', 'GetAnalyticsConfiguration', 'GetBucketAcl', 'GetBucketCORS',
  'GetBucketLocation', 'GetBucketLogging', 'GetBucketNotification', 'GetBucketObjectLockConfiguration',
  'GetBucketOwnershipControls', 'GetBucketPolicy', 'GetBucketPolicyStatus', 'GetBucketPublicAccessBlock',
  'GetBucketRequestPayment', 'GetBucketTagging', 'GetBucketVersioning', 'GetBucketWebsite', 'GetEncryptionConfiguration',
  'GetInventoryConfiguration', 'GetLifecycleConfiguration', 'GetMetricsConfiguration', 'GetObject', 'GetObjectAcl',
  'GetObjectAttributes', 'GetObjectLegalHold', 'GetObjectRetention', 'GetObjectTagging', 'GetObjectVersion',
  'GetObjectVersionAcl', 'GetObjectVersionAttributes', 'GetObjectVersionTagging', 'GetReplicationConfiguration',
  'ListAllMyBuckets', 'ListBucket', 'ListBucketMultipartUploads', 'ListBucketVersions', 'ListMultipartUploadParts',
  'ObjectOwnerOverrideToBucketOwner', 'PutAccelerateConfiguration', 'PutAnalyticsConfiguration', 'PutBucketAcl',
  'PutBucketCORS', 'PutBucketLogging', 'PutBucketNotification', 'PutBucketObjectLockConfiguration',
  'PutBucketOwnershipControls', 'PutBucketPolicy', 'PutBucketPublicAccessBlock', 'PutBucketRequestPayment',
  'PutBucketTagging', 'PutBucketVersioning', 'PutBucketWebsite', 'PutEncryptionConfiguration', 'PutInventoryConfiguration',
  'PutLifecycleConfiguration', 'PutMetricsConfiguration', 'PutObject', 'PutObjectAcl', 'PutObjectLegalHold',
  'PutObjectRetention', 'PutObjectTagging', 'PutObjectVersionAcl', 'PutObjectVersionTagging', 'PutReplicationConfiguration',
  'ReplicateDelete', 'ReplicateObject', 'ReplicateTags', 'RestoreObject',
].map((a) => `s3:${a}`);
