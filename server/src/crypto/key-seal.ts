import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * Keys of an encrypted object: a random 256-bit object key, sealed (AES-256-GCM) under a key-encryption key that
 * is the customer's key (SSE-C) or the KMS's (SSE-S3), bound to the object's bucket and key by the GCM
 * additional data so a sealed key copied to another object does not open. Each part's data key is derived from
 * the object key, so no two parts share a key.
 */

/** A fresh random object key. */
export function newObjectKey(): Buffer {
  return randomBytes(32);
}

/** The data key of part `partNumber` (a single PUT is part 1). */
export function partKey(objectKey: Buffer, partNumber: number): Buffer {
  return createHmac('sha256', objectKey).update(`svc object part ${partNumber}`).digest();
}

/**
 * The key-encryption key of an SSE-C object: an HMAC of the customer's key with a random per-object salt, so the
 * customer key itself never encrypts anything stored.
 */
export function customerKek(customerKey: Buffer, salt: Buffer): Buffer {
  return createHmac('sha256', customerKey).update('svc sse-c kek').update(salt).digest();
}

/** Seals `secret` under `kek` for `context` (bucket/key): base64 of nonce ‖ ciphertext ‖ tag. */
export function sealKey(kek: Buffer, secret: Buffer, context: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', kek, iv);
  c.setAAD(Buffer.from(context, 'utf8'));
  return Buffer.concat([iv, c.update(secret), c.final(), c.getAuthTag()]).toString('base64');
}

/** Opens a sealed key; undefined when `kek` or `context` is not the one it was sealed with (or it is damaged). */
export function unsealKey(kek: Buffer, sealed: string, context: string): Buffer | undefined {
  const raw = Buffer.from(sealed, 'base64');
  if (raw.length < 12 + 16) return undefined;
  const d = createDecipheriv('aes-256-gcm', kek, raw.subarray(0, 12));
  d.setAAD(Buffer.from(context, 'utf8'));
  d.setAuthTag(raw.subarray(raw.length - 16));
  try {
    return Buffer.concat([d.update(raw.subarray(12, raw.length - 16)), d.final()]);
  } catch {
    return undefined;
  }
}
