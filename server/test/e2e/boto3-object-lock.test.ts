/**
 * Must show 2 (issue 8), object lock: Debian's python3-boto3 against a started server — a bucket created with
 * Object Lock, a PUT with GOVERNANCE retention, the version delete refused, retention read back, the governance
 * bypass, a legal hold that blocks even the bypass, and a COMPLIANCE default retention.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BOTO3_PRELUDE, boto3Suite } from '../helpers/boto3.js';

const suite = boto3Suite('object-lock', { drives: 4 });

const SCRIPT = `${BOTO3_PRELUDE}import sys, base64, hashlib, datetime, boto3
def md5(b):
    return base64.b64encode(hashlib.md5(b).digest()).decode()
def code(fn):
    try:
        fn()
    except ClientError as e:
        return e.response['Error']['Code'], e.response['ResponseMetadata']['HTTPStatusCode']
    raise SystemExit('expected an error')

B = 'boto-locked'
s3.create_bucket(Bucket=B, ObjectLockEnabledForBucket=True)
assert s3.get_bucket_versioning(Bucket=B)['Status'] == 'Enabled'
assert s3.get_object_lock_configuration(Bucket=B)['ObjectLockConfiguration']['ObjectLockEnabled'] == 'Enabled'

until = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=1)).replace(microsecond=0)
body = b'retained report'
v1 = s3.put_object(Bucket=B, Key='report.pdf', Body=body, ContentMD5=md5(body),
                   ObjectLockMode='GOVERNANCE', ObjectLockRetainUntilDate=until)['VersionId']
head = s3.head_object(Bucket=B, Key='report.pdf')
assert head['ObjectLockMode'] == 'GOVERNANCE' and head['ObjectLockRetainUntilDate'] == until, head
ret = s3.get_object_retention(Bucket=B, Key='report.pdf', VersionId=v1)['Retention']
assert ret == {'Mode': 'GOVERNANCE', 'RetainUntilDate': until}, ret

# Deleting the locked version is refused; a plain delete only adds a delete marker.
assert code(lambda: s3.delete_object(Bucket=B, Key='report.pdf', VersionId=v1)) == ('AccessDenied', 403)
assert s3.delete_object(Bucket=B, Key='report.pdf')['DeleteMarker'] is True
assert s3.get_object(Bucket=B, Key='report.pdf', VersionId=v1)['Body'].read() == body

# Shortening GOVERNANCE needs the bypass.
sooner = until - datetime.timedelta(hours=12)
assert code(lambda: s3.put_object_retention(Bucket=B, Key='report.pdf', VersionId=v1,
            Retention={'Mode': 'GOVERNANCE', 'RetainUntilDate': sooner})) == ('AccessDenied', 403)
s3.put_object_retention(Bucket=B, Key='report.pdf', VersionId=v1, BypassGovernanceRetention=True,
                        Retention={'Mode': 'GOVERNANCE', 'RetainUntilDate': sooner})
assert s3.get_object_retention(Bucket=B, Key='report.pdf', VersionId=v1)['Retention']['RetainUntilDate'] == sooner

# A legal hold blocks the delete even with the bypass; lifting it lets the bypass through.
s3.put_object_legal_hold(Bucket=B, Key='report.pdf', VersionId=v1, LegalHold={'Status': 'ON'})
assert s3.get_object_legal_hold(Bucket=B, Key='report.pdf', VersionId=v1)['LegalHold']['Status'] == 'ON'
assert code(lambda: s3.delete_object(Bucket=B, Key='report.pdf', VersionId=v1, BypassGovernanceRetention=True)) == ('AccessDenied', 403)
s3.put_object_legal_hold(Bucket=B, Key='report.pdf', VersionId=v1, LegalHold={'Status': 'OFF'})
s3.delete_object(Bucket=B, Key='report.pdf', VersionId=v1, BypassGovernanceRetention=True)
assert code(lambda: s3.head_object(Bucket=B, Key='report.pdf', VersionId=v1))[1] == 404

# A default COMPLIANCE retention applies to new objects and cannot be bypassed.
s3.put_object_lock_configuration(Bucket=B, ObjectLockConfiguration={'ObjectLockEnabled': 'Enabled',
    'Rule': {'DefaultRetention': {'Mode': 'COMPLIANCE', 'Days': 1}}})
rule = s3.get_object_lock_configuration(Bucket=B)['ObjectLockConfiguration']['Rule']['DefaultRetention']
assert rule == {'Mode': 'COMPLIANCE', 'Days': 1}, rule
v2 = s3.put_object(Bucket=B, Key='ledger', Body=b'entry', ContentMD5=md5(b'entry'))['VersionId']
assert s3.head_object(Bucket=B, Key='ledger')['ObjectLockMode'] == 'COMPLIANCE'
assert code(lambda: s3.delete_object(Bucket=B, Key='ledger', VersionId=v2, BypassGovernanceRetention=True)) == ('AccessDenied', 403)
assert code(lambda: s3.put_bucket_versioning(Bucket=B, VersioningConfiguration={'Status': 'Suspended'})) == ('InvalidBucketState', 409)
s3.create_bucket(Bucket='boto-plain')
assert code(lambda: s3.get_object_lock_configuration(Bucket='boto-plain')) == ('ObjectLockConfigurationNotFoundError', 404)
print('boto3 object lock ok', boto3.__version__)
`;

test('boto3: object lock bucket, retention, refused delete, governance bypass, legal hold, default COMPLIANCE retention', async () => {
  const r = await suite.run('object_lock', SCRIPT);
  assert.match(r.stdout, /boto3 object lock ok/);
});
