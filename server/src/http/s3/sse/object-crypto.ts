import { randomBytes } from 'node:crypto';
import { Readable, pipeline } from 'node:stream';
import {
  KmsError, customerKek, decryptRange, encryptStream, encryptedSize, newObjectKey, partKey, plainSize, planRange, sealKey, unsealKey,
  type CipherPart, type LocalKms,
} from '../../../crypto/index.js';
import type { ByteRange, ObjectInfo, OpenObject } from '../../../storage/index.js';
import type { S3Context } from '../context.js';
import { S3Error } from '../s3-error.js';
import { parseCustomerKey, type CustomerKey, type SseCPrefix, type SseWrite } from './sse-request.js';

/**
 * Server-side encryption of object data at the S3 edge, before erasure coding: the engine stores ciphertext and
 * the encryption seal in the version's internal metadata, which it never interprets. Data is encrypted in
 * packages (crypto/package-cipher.ts) under a random object key; that key is sealed under the customer's key
 * (SSE-C: only the sealed key and a salt are stored, nothing that reveals the customer key) or the KMS (SSE-S3).
 */

const KIND = 'sse.kind';
const SEALED = 'sse.sealed';
const SALT = 'sse.salt';
const KMS_KEY = 'sse.kms-key';
/** MD5 of the plaintext of a single-PUT SSE-S3 object: its ETag, as on AWS. */
const PLAIN_ETAG = 'sse.etag';

/** Encryption kind of a stored object, or undefined when it is not encrypted. */
export function storedEncryption(info: Pick<ObjectInfo, 'internal'>): 'SSE-C' | 'SSE-S3' | undefined {
  const kind = info.internal?.[KIND];
  return kind === 'SSE-C' || kind === 'SSE-S3' ? kind : undefined;
}

/** The binding of a sealed key to its object. */
function sealContext(bucket: string, key: string): string {
  return `${bucket}/${key}`;
}

function noKms(): S3Error {
  return new S3Error('NotImplemented', {
    message: 'Server-side encryption with S3 managed keys (SSE-S3) needs a KMS, and none is configured on this server (set SVC_KMS_SECRET_KEY).',
  });
}

/** A new object's encryption: the internal metadata to store and the object key to encrypt with. */
export interface NewEncryption {
  kind: 'SSE-C' | 'SSE-S3';
  internal: Record<string, string>;
  objectKey: Buffer;
  customer?: CustomerKey;
}

/** Seals a fresh object key as `sse` asks; undefined for an unencrypted write. SSE-S3 without a KMS → 501. */
export function sealNewObject(ctx: Pick<S3Context, 'kms'>, sse: SseWrite, bucket: string, key: string): NewEncryption | undefined {
  if (sse.kind === 'none') return undefined;
  const objectKey = newObjectKey();
  if (sse.kind === 'SSE-C') {
    const salt = randomBytes(32);
    return {
      kind: 'SSE-C',
      objectKey,
      customer: sse.customer,
      internal: { [KIND]: 'SSE-C', [SALT]: salt.toString('base64'), [SEALED]: sealKey(customerKek(sse.customer.key, salt), objectKey, sealContext(bucket, key)) },
    };
  }
  if (ctx.kms === undefined) throw noKms();
  return {
    kind: 'SSE-S3',
    objectKey,
    internal: { [KIND]: 'SSE-S3', [KMS_KEY]: ctx.kms.keyId, [SEALED]: ctx.kms.seal(objectKey, sealContext(bucket, key)) },
  };
}

/**
 * The object key of a stored encrypted object, from the request's SSE-C key (headers of `prefix`) or the KMS.
 * Unencrypted objects: undefined, and SSE-C headers are refused (400 InvalidRequest, as AWS). SSE-C objects
 * without the key → 400 InvalidRequest; with another key → 403 AccessDenied.
 */
export function openObjectKey(
  ctx: S3Context, info: Pick<ObjectInfo, 'bucket' | 'key' | 'internal'>, prefix: SseCPrefix = 'x-amz-server-side-encryption-customer',
): { objectKey: Buffer; customer?: CustomerKey } | undefined {
  const kind = storedEncryption(info);
  const customer = parseCustomerKey(ctx, prefix);
  if (kind === undefined) {
    if (customer !== undefined) throw new S3Error('InvalidRequest', { message: 'The encryption parameters are not applicable to this object.' });
    return undefined;
  }
  const internal = info.internal ?? {};
  const context = sealContext(info.bucket, info.key);
  if (kind === 'SSE-C') {
    if (customer === undefined) {
      throw new S3Error('InvalidRequest', {
        message: 'The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.',
      });
    }
    const objectKey = unsealKey(customerKek(customer.key, Buffer.from(internal[SALT] ?? '', 'base64')), internal[SEALED] ?? '', context);
    if (objectKey === undefined) throw new S3Error('AccessDenied', { message: 'The provided customer key does not match the key the object was encrypted with.' });
    return { objectKey, customer };
  }
  if (customer !== undefined) throw new S3Error('InvalidRequest', { message: 'The encryption parameters are not applicable to this object.' });
  return { objectKey: kmsObjectKey(ctx.kms, info) };
}

/** The object key of a stored SSE-S3 object, unsealed by the KMS (none configured → 501 NotImplemented). */
export function kmsObjectKey(kms: LocalKms | undefined, info: Pick<ObjectInfo, 'bucket' | 'key' | 'internal'>): Buffer {
  if (kms === undefined) throw noKms();
  const internal = info.internal ?? {};
  try {
    return kms.unseal(internal[KMS_KEY] ?? '', internal[SEALED] ?? '', sealContext(info.bucket, info.key));
  } catch (err) {
    if (err instanceof KmsError) throw new S3Error('InternalError', { message: 'The object key could not be unsealed by the KMS.', cause: err });
    throw err;
  }
}

function cipherParts(info: ObjectInfo, objectKey: Buffer): CipherPart[] {
  if (info.parts === undefined) return [{ key: partKey(objectKey, 1), cipherSize: info.size }];
  return info.parts.map((p) => ({ key: partKey(objectKey, p.partNumber), cipherSize: p.size }));
}

/**
 * The object as the client sees it: plaintext size (and part sizes), and the plaintext ETag of a single-PUT SSE-S3
 * object. Unencrypted objects are returned as they are. Needs no key (listings use it).
 */
export function plainView(info: ObjectInfo): ObjectInfo {
  if (storedEncryption(info) === undefined) return info;
  const view: ObjectInfo = { ...info };
  if (info.parts === undefined) {
    view.size = plainSize(info.size);
  } else {
    view.parts = info.parts.map((p) => ({ ...p, size: plainSize(p.size) }));
    view.size = view.parts.reduce((sum, p) => sum + p.size, 0);
  }
  const etag = info.internal?.[PLAIN_ETAG];
  if (etag !== undefined) view.etag = etag;
  return view;
}

/**
 * The size clients see for a stored object (the plaintext size of an encrypted one): what lifecycle size filters
 * compare (https://docs.aws.amazon.com/AmazonS3/latest/userguide/intro-lifecycle-filters.html).
 */
export function plainObjectSize(info: ObjectInfo): number {
  return plainView(info).size;
}

/** Response headers that describe an object's encryption (PUT, GET, HEAD, copies, multipart). */
export function encryptionHeaders(kind: 'SSE-C' | 'SSE-S3' | undefined, customer?: CustomerKey): Record<string, string> {
  if (kind === 'SSE-S3') return { 'x-amz-server-side-encryption': 'AES256' };
  if (kind === 'SSE-C' && customer !== undefined) {
    return {
      'x-amz-server-side-encryption-customer-algorithm': 'AES256',
      'x-amz-server-side-encryption-customer-key-md5': customer.keyMd5,
    };
  }
  return {};
}

/**
 * The client's view of a stored object without reading it (HEAD, GetObjectAttributes): the key is checked as for
 * a GET, and the encryption response headers are returned.
 */
export function decryptedInfo(ctx: S3Context, info: ObjectInfo): { info: ObjectInfo; headers: Record<string, string> } {
  const opened = openObjectKey(ctx, info);
  return { info: plainView(info), headers: encryptionHeaders(storedEncryption(info), opened?.customer) };
}

/**
 * Opens a stored object for a client: the plaintext view and a read that decrypts only the packages a range
 * needs. `prefix` names the SSE-C headers holding the key (the object's own, or a copy source's).
 */
export function decryptingObject(ctx: S3Context, object: OpenObject, prefix?: SseCPrefix): { object: OpenObject; headers: Record<string, string> } {
  const opened = openObjectKey(ctx, object.info, prefix);
  if (opened === undefined) return { object, headers: {} };
  return { headers: encryptionHeaders(storedEncryption(object.info), opened.customer), object: decryptedObject(object, opened.objectKey) };
}

/** An encrypted object opened with its object key: the plaintext view, and reads that decrypt only what a range needs. */
export function decryptedObject(object: OpenObject, objectKey: Buffer): OpenObject {
  const info = plainView(object.info);
  const parts = cipherParts(object.info, objectKey);
  return {
    info,
    read(range?: ByteRange): Readable {
      if (info.size === 0) return Readable.from([]);
      const plan = planRange(parts, range?.start ?? 0, range?.end ?? info.size - 1);
      const stored = object.read({ start: plan.cipherStart, end: plan.cipherEnd });
      return Readable.from(decryptRange(stored, plan), { objectMode: false });
    },
  };
}

/** A body to hand the engine for an encrypted write: the ciphertext stream and its size (-1 when unknown). */
export interface EncryptedBody {
  stream: Readable;
  size: number;
}

/**
 * Encrypts part `partNumber` of a new object. `md5` (Content-MD5) is checked against the plaintext before the
 * final package is written (400 BadDigest, nothing committed). With `recordPlainEtag` (a single SSE-S3 PUT) the
 * plaintext MD5 is recorded as the ETag in `enc.internal`, which the engine reads once the body has ended.
 */
export function encryptBody(
  enc: Pick<NewEncryption, 'objectKey' | 'internal'>, body: Readable, plainLength: number,
  opts: { partNumber: number; md5?: Buffer; recordPlainEtag: boolean },
): EncryptedBody {
  const e = encryptStream(partKey(enc.objectKey, opts.partNumber), (digest) => {
    if (opts.md5 !== undefined && !opts.md5.equals(digest)) throw new S3Error('BadDigest', { message: 'The Content-MD5 you specified did not match what we received.' });
    if (opts.recordPlainEtag) enc.internal[PLAIN_ETAG] = digest.toString('hex');
  });
  pipeline(body, e.stream, () => undefined);
  return { stream: e.stream, size: plainLength < 0 ? -1 : encryptedSize(plainLength) };
}

/** The plaintext size of a stored part of an upload whose internal metadata is `internal`. */
export function plainPartSize(internal: Record<string, string> | undefined, storedSize: number): number {
  return storedEncryption({ internal }) === undefined ? storedSize : plainSize(storedSize);
}

/**
 * The object key of a multipart upload whose internal metadata is `internal` (UploadPart, UploadPartCopy,
 * CompleteMultipartUpload): SSE-C uploads need the same customer key on every part, as AWS requires.
 */
export function openUploadKey(
  ctx: S3Context, bucket: string, key: string, internal: Record<string, string> | undefined,
): { kind: 'SSE-C' | 'SSE-S3'; objectKey: Buffer; internal: Record<string, string>; customer?: CustomerKey } | undefined {
  const info = { bucket, key, ...(internal !== undefined ? { internal } : {}) };
  const kind = storedEncryption(info);
  const opened = openObjectKey(ctx, info);
  if (opened === undefined || kind === undefined) return undefined;
  return { kind, objectKey: opened.objectKey, internal: { ...internal }, ...(opened.customer !== undefined ? { customer: opened.customer } : {}) };
}
