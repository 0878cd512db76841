import { createHmac } from 'node:crypto';
import { sealKey, unsealKey } from './key-seal.js';

/**
 * A local key management service for SSE-S3: one named 256-bit master key from the environment
 * (SVC_KMS_SECRET_KEY=<name>:<base64 key>, like MinIO's MINIO_KMS_SECRET_KEY). Object keys are sealed under a
 * key derived from the master key and the key name, bound to the object they belong to.
 */

/** Invalid KMS configuration. */
export class KmsConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KmsConfigError';
  }
}

/** A KMS operation that failed (unknown key name, sealed key that does not open). */
export class KmsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KmsError';
  }
}

/** What readiness reports about the KMS (SPEC §2: `details.kms`). */
export interface KmsStatus {
  ready: boolean;
  keyId: string;
  kind: 'local';
}

/** The local KMS. */
export class LocalKms {
  readonly keyId: string;
  readonly #kek: Buffer;

  constructor(keyId: string, masterKey: Buffer) {
    if (masterKey.length !== 32) throw new KmsConfigError('the KMS master key must be 32 bytes');
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(keyId)) throw new KmsConfigError('the KMS key name must be 1-64 of A-Z a-z 0-9 . _ -');
    this.keyId = keyId;
    this.#kek = createHmac('sha256', masterKey).update(`svc kms ${keyId}`).digest();
  }

  /** Seals an object key for `context`. */
  seal(secret: Buffer, context: string): string {
    return sealKey(this.#kek, secret, context);
  }

  /** Opens a key this KMS sealed; KmsError for another key name or a sealed key that does not open. */
  unseal(keyId: string, sealed: string, context: string): Buffer {
    if (keyId !== this.keyId) throw new KmsError(`KMS key "${keyId}" is not configured on this server`);
    const key = unsealKey(this.#kek, sealed, context);
    if (key === undefined) throw new KmsError('the sealed object key does not open with the KMS key');
    return key;
  }

  /** Readiness detail. */
  status(): KmsStatus {
    return { ready: true, keyId: this.keyId, kind: 'local' };
  }
}

/**
 * Parses SVC_KMS_SECRET_KEY: `<name>:<base64 of 32 bytes>`. Throws KmsConfigError with a message naming the
 * variable (the key itself is never echoed).
 */
export function parseKmsSecretKey(value: string): LocalKms {
  const colon = value.indexOf(':');
  if (colon <= 0) throw new KmsConfigError('SVC_KMS_SECRET_KEY must be <key-name>:<base64 of 32 bytes>');
  const b64 = value.slice(colon + 1).trim();
  const key = /^[A-Za-z0-9+/]+={0,2}$/.test(b64) ? Buffer.from(b64, 'base64') : Buffer.alloc(0);
  if (key.length !== 32) throw new KmsConfigError('SVC_KMS_SECRET_KEY: the key must be 32 bytes, base64-encoded');
  return new LocalKms(value.slice(0, colon).trim(), key);
}
