import { createHash } from 'node:crypto';
import { header, type S3Context } from '../context.js';
import { S3Error } from '../s3-error.js';

/**
 * Server-side encryption request headers (https://docs.aws.amazon.com/AmazonS3/latest/userguide/ServerSideEncryptionCustomerKeys.html,
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingServerSideEncryption.html).
 */

/** A customer-provided key (SSE-C) as the request gave it, checked. */
export interface CustomerKey {
  key: Buffer;
  /** Base64 MD5 of the key, echoed in x-amz-server-side-encryption-customer-key-MD5. */
  keyMd5: string;
}

/** How a write asks its object to be encrypted. */
export type SseWrite = { kind: 'none' } | { kind: 'SSE-S3' } | { kind: 'SSE-C'; customer: CustomerKey };

/** Header prefix of the object's own SSE-C key, and of a copy source's. */
export type SseCPrefix = 'x-amz-server-side-encryption-customer' | 'x-amz-copy-source-server-side-encryption-customer';

function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1' || (address?.startsWith('127.') ?? false);
}

/**
 * AWS refuses SSE-C over plain HTTP (the key would travel in clear). This server accepts it over HTTPS, from a
 * loopback peer (a local client or a TLS-terminating proxy on the same host), or anywhere when the operator
 * opted in (SVC_SSE_C_ALLOW_HTTP=true); otherwise 400 InvalidRequest, as AWS answers.
 */
function requireSecureTransport(ctx: S3Context): void {
  if (ctx.request.protocol === 'https' || ctx.sseCOverHttp === true || isLoopback(ctx.request.socket.remoteAddress)) return;
  throw new S3Error('InvalidRequest', { message: 'Requests specifying Server Side Encryption with Customer provided keys must be made over a secure connection.' });
}

/**
 * The SSE-C key of `prefix`, or undefined when none of its three headers is present. Errors as AWS: an algorithm
 * other than AES256 → InvalidEncryptionAlgorithmError; a missing key or MD5, a key that is not 256 bits, or an
 * MD5 that does not match → 400 InvalidArgument.
 */
export function parseCustomerKey(ctx: S3Context, prefix: SseCPrefix): CustomerKey | undefined {
  const algorithm = header(ctx, `${prefix}-algorithm`);
  const rawKey = header(ctx, `${prefix}-key`);
  const rawMd5 = header(ctx, `${prefix}-key-md5`);
  if (algorithm === undefined && rawKey === undefined && rawMd5 === undefined) return undefined;
  const arg = (message: string, name: string): S3Error => new S3Error('InvalidArgument', { message, extra: { ArgumentName: name } });
  if (algorithm === undefined) {
    throw arg('Requests specifying Server Side Encryption with Customer provided keys must provide a valid encryption algorithm.', `${prefix}-algorithm`);
  }
  if (algorithm !== 'AES256') throw new S3Error('InvalidEncryptionAlgorithmError', { extra: { ArgumentName: `${prefix}-algorithm`, ArgumentValue: algorithm } });
  if (rawKey === undefined) throw arg('Requests specifying Server Side Encryption with Customer provided keys must provide an appropriate secret key.', `${prefix}-key`);
  if (rawMd5 === undefined) throw arg('Requests specifying Server Side Encryption with Customer provided keys must provide the client calculated MD5 of the secret key.', `${prefix}-key-MD5`);
  const key = Buffer.from(rawKey, 'base64');
  if (key.length !== 32 || key.toString('base64') !== rawKey) throw arg('The secret key was invalid for the specified algorithm.', `${prefix}-key`);
  if (createHash('md5').update(key).digest('base64') !== rawMd5) {
    throw arg('The calculated MD5 hash of the key did not match the hash that was provided.', `${prefix}-key-MD5`);
  }
  requireSecureTransport(ctx);
  return { key, keyMd5: rawMd5 };
}

/**
 * What the request's x-amz-server-side-encryption / SSE-C headers ask for. AES256 is SSE-S3; aws:kms and
 * aws:kms:dsse (SSE-KMS) → 501 NotImplemented; other values → 400 InvalidArgument; SSE-S3 together with an
 * SSE-C key → 400 InvalidArgument.
 */
export function parseSseWrite(ctx: S3Context): SseWrite {
  const customer = parseCustomerKey(ctx, 'x-amz-server-side-encryption-customer');
  const sse = header(ctx, 'x-amz-server-side-encryption');
  if (sse !== undefined && customer !== undefined) {
    throw new S3Error('InvalidArgument', {
      message: 'Server Side Encryption with Customer provided key is incompatible with the encryption method specified',
      extra: { ArgumentName: 'x-amz-server-side-encryption', ArgumentValue: sse },
    });
  }
  if (customer !== undefined) return { kind: 'SSE-C', customer };
  if (sse === undefined) return { kind: 'none' };
  if (sse === 'AES256') return { kind: 'SSE-S3' };
  if (sse === 'aws:kms' || sse === 'aws:kms:dsse') {
    throw new S3Error('NotImplemented', { message: `Server-side encryption with KMS keys (${sse}) is not implemented by this server; use AES256 (SSE-S3) or SSE-C.` });
  }
  throw new S3Error('InvalidArgument', {
    message: 'The encryption method specified is not supported', extra: { ArgumentName: 'x-amz-server-side-encryption', ArgumentValue: sse },
  });
}
