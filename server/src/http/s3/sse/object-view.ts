import type { Readable } from 'node:stream';
import type { LocalKms } from '../../../crypto/index.js';
import type { ObjectInfo, ObjectLayer, OpenObject, PutObjectOptions } from '../../../storage/index.js';
import { S3Error } from '../s3-error.js';
import { decryptedObject, encryptBody, kmsObjectKey, plainView, sealNewObject, storedEncryption } from './object-crypto.js';

/**
 * The engine as S3 clients see it, for front ends that store and read objects without going through the S3 API
 * (the web console): the engine keeps encrypted objects as ciphertext, so without this a console download of an
 * SSE-S3 object would be ciphertext, its listed size the ciphertext's, and an upload into a bucket with default
 * encryption (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucket-encryption.html) would be stored in clear.
 * Writes follow the bucket default (SSE-S3); reads decrypt SSE-S3 objects with the KMS; SSE-C objects are refused
 * (400 InvalidRequest: only the customer, through the S3 API, has their key). Everything else is the engine's own.
 */
export function encryptingObjectView(layer: ObjectLayer, kms: LocalKms | undefined): ObjectLayer {
  const open = (object: OpenObject): OpenObject => {
    const kind = storedEncryption(object.info);
    if (kind === undefined) return object;
    if (kind === 'SSE-C') {
      throw new S3Error('InvalidRequest', { message: 'The object is encrypted with a customer-provided key (SSE-C): read it through the S3 API with that key.' });
    }
    return decryptedObject(object, kmsObjectKey(kms, object.info));
  };
  const overrides: Partial<ObjectLayer> = {
    async putObject(bucket: string, key: string, body: Readable, opts: PutObjectOptions): Promise<ObjectInfo> {
      if ((await layer.getBucketConfig(bucket, 'encryption')) !== 'AES256') return layer.putObject(bucket, key, body, opts);
      const enc = sealNewObject({ kms }, { kind: 'SSE-S3' }, bucket, key)!;
      const { md5, internal, ...rest } = opts;
      // As for a single S3 PUT: Content-MD5 is the plaintext's and the plaintext MD5 becomes the ETag; enc.internal
      // is handed over as is because the engine reads it once the body has ended, after that ETag is recorded.
      for (const [name, value] of Object.entries(internal ?? {})) if (enc.internal[name] === undefined) enc.internal[name] = value;
      const encrypted = encryptBody(enc, body, opts.size, { partNumber: 1, ...(md5 !== undefined ? { md5 } : {}), recordPlainEtag: true });
      return plainView(await layer.putObject(bucket, key, encrypted.stream, { ...rest, size: encrypted.size, internal: enc.internal }));
    },
    async getObjectInfo(bucket, key, opts) {
      return plainView(await layer.getObjectInfo(bucket, key, opts));
    },
    async openObject(bucket, key, opts) {
      return open(await layer.openObject(bucket, key, opts));
    },
    async listObjects(bucket, opts) {
      const page = await layer.listObjects(bucket, opts);
      return { ...page, objects: page.objects.map(plainView) };
    },
    async listObjectVersions(bucket, opts) {
      const page = await layer.listObjectVersions(bucket, opts);
      return { ...page, versions: page.versions.map((v) => (v.info === undefined ? v : { ...v, info: plainView(v.info) })) };
    },
  };
  return new Proxy(layer, {
    get(target, prop) {
      if (typeof prop === 'string' && Object.prototype.hasOwnProperty.call(overrides, prop)) return overrides[prop as keyof ObjectLayer];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
