/** Fuzzing the S3 XML request bodies (issue 10 Must show 3): every decoder returns or throws an S3Error. */
import { test } from 'node:test';
import { decodeCorsConfiguration } from '../../src/http/s3/cors/cors-xml.js';
import { decodeLifecycleConfiguration } from '../../src/http/s3/xml/lifecycle-xml.js';
import { decodeLegalHold, decodeObjectLockConfiguration, decodeRetention } from '../../src/http/s3/xml/object-lock-xml.js';
import {
  decodeCompleteMultipartUpload, decodeCreateBucketConfiguration, decodeDeleteObjects, decodeTagging, decodeVersioningConfiguration,
} from '../../src/http/s3/xml/requests.js';
import { S3Error } from '../../src/http/s3/s3-error.js';
import { fc, fuzz, mutated, RUNS, survives, tokenish } from './harness.js';

const SAMPLES = [
  '<Delete><Quiet>true</Quiet><Object><Key>a</Key><VersionId>v</VersionId></Object><Object><Key>b/c</Key></Object></Delete>',
  '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"abc"</ETag></Part><Part><PartNumber>2</PartNumber><ETag>x</ETag><ChecksumCRC32>AAAAAA==</ChecksumCRC32></Part></CompleteMultipartUpload>',
  '<CreateBucketConfiguration><LocationConstraint>us-east-1</LocationConstraint></CreateBucketConfiguration>',
  '<Tagging><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tagging>',
  '<VersioningConfiguration><Status>Enabled</Status><MfaDelete>Disabled</MfaDelete></VersioningConfiguration>',
  '<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod><AllowedHeader>*</AllowedHeader><MaxAgeSeconds>30</MaxAgeSeconds><ExposeHeader>ETag</ExposeHeader></CORSRule></CORSConfiguration>',
  '<LifecycleConfiguration><Rule><ID>r</ID><Filter><And><Prefix>logs/</Prefix><Tag><Key>t</Key><Value>1</Value></Tag><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan></And></Filter><Status>Enabled</Status><Expiration><Days>3</Days></Expiration><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>2</NewerNoncurrentVersions></NoncurrentVersionExpiration><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule></LifecycleConfiguration>',
  '<ObjectLockConfiguration><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>GOVERNANCE</Mode><Days>1</Days></DefaultRetention></Rule></ObjectLockConfiguration>',
  '<Retention><Mode>COMPLIANCE</Mode><RetainUntilDate>2030-01-01T00:00:00Z</RetainUntilDate></Retention>',
  '<LegalHold><Status>ON</Status></LegalHold>',
  '<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE x [<!ENTITY a "aaaa">]><Delete><Object><Key>&a;&a;</Key></Object></Delete>',
];

const DECODERS: [string, (b: Buffer) => unknown][] = [
  ['DeleteObjects', decodeDeleteObjects], ['CompleteMultipartUpload', decodeCompleteMultipartUpload],
  ['CreateBucketConfiguration', decodeCreateBucketConfiguration], ['Tagging', decodeTagging],
  ['VersioningConfiguration', decodeVersioningConfiguration], ['CORSConfiguration', decodeCorsConfiguration],
  ['LifecycleConfiguration', decodeLifecycleConfiguration], ['ObjectLockConfiguration', decodeObjectLockConfiguration],
  ['Retention', decodeRetention], ['LegalHold', decodeLegalHold],
];

const xmlish = fc.oneof(mutated(SAMPLES, '<>/="&;!?[] \n'), tokenish('<>/="&;! '));

for (const [name, decode] of DECODERS) {
  test(`${name} XML: ${RUNS} inputs, only S3 errors`, () => {
    fuzz(`xml-${name}`, xmlish, (s) => survives((x: string) => decode(Buffer.from(x)), (e) => e instanceof S3Error, s), (s) => s);
  });
}
