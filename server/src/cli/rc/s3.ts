/**
 * The S3 side of `rc`: one SDK client per alias and the translation of SDK failures into {@link RcError}s with
 * the exit codes of errors.ts (done here once, so every command reports the same failure the same way).
 */
import { S3Client } from '@aws-sdk/client-s3';
import type { AliasConfig } from './config.js';
import { EXIT, RcError } from './errors.js';

/** A path-style client for `alias` (svc serves path-style; SigV4 covers host and path, SPEC §5). */
export function s3ClientFor(alias: AliasConfig): S3Client {
  return new S3Client({
    endpoint: alias.url,
    region: alias.region,
    forcePathStyle: true,
    credentials: { accessKeyId: alias.accessKey, secretAccessKey: alias.secretKey },
    maxAttempts: 2,
    // requestTimeout is a socket inactivity limit, so long transfers are fine while a hung server cannot hang rc.
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
    // The server validates the newer default checksums too, but only when the request actually needs one.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

/** The errno-style code of a network failure somewhere in the cause chain, if any. */
export function networkCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    const name = (e as { name?: unknown }).name;
    if (name === 'TimeoutError') return 'ETIMEDOUT';
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors)) for (const inner of errors) { const c = networkCode(inner); if (c) return c; }
  }
  return undefined;
}

/** The unreachable-server error (exit 4). */
export function unreachable(url: string, code: string, cause?: unknown): RcError {
  return new RcError(EXIT.unreachable, `cannot reach ${url} (${code})`, { hint: 'check that the server runs and the alias URL is right ("rc alias list")', cause });
}

const AUTH_CODES = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'RequestTimeTooSkewed', 'InvalidToken', 'ExpiredToken']);
const NOT_FOUND_CODES = new Set(['NoSuchBucket', 'NoSuchKey', 'NotFound', 'NoSuchUpload', 'NoSuchVersion', 'NoSuchUser', 'NoSuchPolicy', 'NoSuchGroup', 'NoSuchServiceAccount']);

/**
 * Maps any failure of a call to the alias at `url` about `what` (e.g. `alias/bucket/key`) to an {@link RcError}:
 * network → 4, InvalidAccessKeyId/SignatureDoesNotMatch → 5, AccessDenied → 6, NoSuch* / 404 → 7, else 1.
 */
export function toRcError(err: unknown, url: string, what: string): RcError {
  if (err instanceof RcError) return err;
  const net = networkCode(err);
  if (net !== undefined) return unreachable(url, net, err);
  const e = err as { name?: string; Code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  // A HEAD error answer has no body, so the SDK can only name it "Unknown"/"BadRequest"; the status says more.
  const named = e.Code ?? e.name ?? 'Error';
  const code = (named === 'Unknown' || named === 'UnknownError' || named === 'BadRequest') && status !== undefined ? `HTTP ${status}` : named;
  const detail = e.message && e.message !== code && e.message !== 'UnknownError' ? `: ${e.message}` : '';
  if (AUTH_CODES.has(code)) {
    return new RcError(EXIT.auth, `authentication failed for ${url} (${code})`, { hint: 'check the alias keys ("rc alias set" to replace them)', serverCode: code, cause: err });
  }
  if (code === 'AccessDenied' || (status === 403 && code !== 'Forbidden')) {
    return new RcError(EXIT.denied, `access denied to ${what} (AccessDenied)`, { hint: 'the alias user lacks the permission; ask an administrator for a policy that allows it', serverCode: 'AccessDenied', cause: err });
  }
  if (status === 403) {
    // A HEAD answer has no body, so 403 there cannot tell bad keys from a missing permission.
    return new RcError(EXIT.denied, `access denied to ${what} (403 Forbidden)`, { hint: 'check the alias keys and the user\'s policies', serverCode: 'AccessDenied', cause: err });
  }
  if (NOT_FOUND_CODES.has(code) || status === 404) {
    const kind = code === 'NoSuchBucket' ? 'bucket' : code === 'NoSuchKey' || code === 'NotFound' ? 'object' : 'resource';
    return new RcError(EXIT.notFound, `${what}: ${kind} not found (${code === 'NotFound' ? '404' : code})`, { serverCode: code, cause: err });
  }
  return new RcError(EXIT.failure, `${what}: ${code}${detail}`, { serverCode: code, cause: err });
}
