/**
 * Keys of the console, derived from the root credentials with HKDF-SHA256 (RFC 5869): every node of a cluster
 * has the same root credentials, so every node derives the same keys and verifies the sessions and login states
 * another node issued (REFERENCE.md §3.2 point 3: no sticky sessions needed, no extra secret to distribute).
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** The derived keys. */
export interface ConsoleKeys {
  /** HMAC-SHA256 key of session tokens, CSRF tokens and secret fingerprints. */
  readonly mac: Buffer;
  /** AES-256-GCM key of the OpenID Connect login state. */
  readonly seal: Buffer;
}

function derive(secret: string, salt: string, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.from(salt, 'utf8'), Buffer.from(info, 'utf8'), 32));
}

/** Derives the console keys from the root credentials. */
export function deriveConsoleKeys(root: { accessKey: string; secretKey: string }): ConsoleKeys {
  return {
    mac: derive(root.secretKey, root.accessKey, 'svc-console-mac-v1'),
    seal: derive(root.secretKey, root.accessKey, 'svc-console-seal-v1'),
  };
}

/** HMAC-SHA256 of `text`, base64url. */
export function mac(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('base64url');
}

/** Constant-time comparison of two strings (false when the lengths differ). */
export function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Encrypts and authenticates `plain` (AES-256-GCM, random 96-bit IV): `iv.ciphertext.tag` in base64url. */
export function seal(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
}

/** Opens what {@link seal} made; undefined when it was altered or made with another key. */
export function unseal(key: Buffer, sealed: string): string | undefined {
  const parts = sealed.split('.');
  if (parts.length !== 3) return undefined;
  const [iv, body, tag] = parts.map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer];
  if (iv.length !== 12 || tag.length !== 16) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
