import type { SigV4Request } from './types.js';

/**
 * Published examples of the Amazon S3 API reference, used as fixtures:
 * - "Examples: Signature Calculations" of sig-v4-header-based-auth.html (GET Object, PUT Object,
 *   GET Bucket Lifecycle, Get Bucket (List Objects));
 * - "Example: PUT Object" of sigv4-streaming.html (seed and chunk signatures of a 64 KiB + 1 KiB upload);
 * - "An Example" of sigv4-query-string-auth.html (presigned GET of examplebucket/test.txt, 86400 s).
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
 */
export const EXAMPLE_ACCESS_KEY = 'AKIAIOSFODNN7EXAMPLE';
export const EXAMPLE_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
/** 20130524T000000Z, the time of every example. */
export const EXAMPLE_TIME = new Date('2013-05-24T00:00:00Z');
export const EMPTY_HASH = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const CRED = `${EXAMPLE_ACCESS_KEY}/20130524/us-east-1/s3/aws4_request`;
const auth = (signedHeaders: string, signature: string): string =>
  `AWS4-HMAC-SHA256 Credential=${CRED},SignedHeaders=${signedHeaders},Signature=${signature}`;

/** GET /test.txt with Range, signed with the hash of the empty payload. */
export const GET_OBJECT: SigV4Request = {
  method: 'GET', rawPath: '/test.txt', rawQuery: '',
  headers: {
    host: 'examplebucket.s3.amazonaws.com', range: 'bytes=0-9', 'x-amz-content-sha256': EMPTY_HASH, 'x-amz-date': '20130524T000000Z',
    authorization: auth('host;range;x-amz-content-sha256;x-amz-date', 'f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41'),
  },
};

/** PUT /test$file.text ("Welcome to Amazon S3."): '$' sent raw but signed as %24. */
export const PUT_OBJECT: SigV4Request = {
  method: 'PUT', rawPath: '/test$file.text', rawQuery: '',
  headers: {
    host: 'examplebucket.s3.amazonaws.com', date: 'Fri, 24 May 2013 00:00:00 GMT', 'x-amz-storage-class': 'REDUCED_REDUNDANCY',
    'x-amz-content-sha256': '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072', 'x-amz-date': '20130524T000000Z',
    authorization: auth('date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class', '98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd'),
  },
};
export const PUT_OBJECT_BODY = 'Welcome to Amazon S3.';

/** GET /?lifecycle (a query parameter without value). */
export const GET_LIFECYCLE: SigV4Request = {
  method: 'GET', rawPath: '/', rawQuery: 'lifecycle',
  headers: {
    host: 'examplebucket.s3.amazonaws.com', 'x-amz-content-sha256': EMPTY_HASH, 'x-amz-date': '20130524T000000Z',
    authorization: auth('host;x-amz-content-sha256;x-amz-date', 'fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543'),
  },
};

/** GET /?max-keys=2&prefix=J */
export const LIST_OBJECTS: SigV4Request = {
  method: 'GET', rawPath: '/', rawQuery: 'max-keys=2&prefix=J',
  headers: {
    host: 'examplebucket.s3.amazonaws.com', 'x-amz-content-sha256': EMPTY_HASH, 'x-amz-date': '20130524T000000Z',
    authorization: auth('host;x-amz-content-sha256;x-amz-date', '34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7'),
  },
};

/** Presigned GET of examplebucket/test.txt, valid 86400 s from 20130524T000000Z. */
export const PRESIGNED_GET: SigV4Request = {
  method: 'GET', rawPath: '/test.txt',
  rawQuery: 'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request'
    + '&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host'
    + '&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
  headers: { host: 'examplebucket.s3.amazonaws.com' },
};

/** The chunked upload: 66560 bytes of 'a' in a 65536-byte chunk, a 1024-byte chunk and the final chunk. */
export const CHUNKED_PUT: SigV4Request = {
  method: 'PUT', rawPath: '/examplebucket/chunkObject.txt', rawQuery: '',
  headers: {
    host: 's3.amazonaws.com', 'x-amz-date': '20130524T000000Z', 'x-amz-storage-class': 'REDUCED_REDUNDANCY',
    'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD', 'content-encoding': 'aws-chunked',
    'x-amz-decoded-content-length': '66560', 'content-length': '66824',
    authorization: auth('content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class',
      '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9'),
  },
};
export const CHUNK_SIGNATURES = [
  'ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648',
  '0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497',
  'b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9',
] as const;

/** The aws-chunked body of CHUNKED_PUT as the documentation lays it out (66824 bytes). */
export function chunkedPutBody(): Buffer {
  const sizes = [65536, 1024, 0];
  return Buffer.concat(sizes.map((size, i) => Buffer.concat([
    Buffer.from(`${size.toString(16)};chunk-signature=${CHUNK_SIGNATURES[i]}\r\n`),
    Buffer.alloc(size, 'a'),
    Buffer.from('\r\n'),
  ])));
}
