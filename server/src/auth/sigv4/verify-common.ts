import type { LookupSecret } from '../credentials.js';
import { DEFAULT_MAX_SKEW_MS } from './constants.js';
import { SigV4Error } from './sigv4-errors.js';

/** Options of verifyRequest. */
export interface VerifyOptions {
  /** Server time (injected clock). */
  now: Date;
  /** Tolerated difference between request time and `now`; default 15 minutes, as S3. */
  maxSkewMs?: number;
}

/** S3's wording for SigV2, SigV4a and any other scheme. */
export const UNSUPPORTED_MECHANISM =
  'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.';

/** Header-authenticated requests must be signed within maxSkewMs of the server clock. */
export function checkSkew(requestTime: Date, opts: VerifyOptions): void {
  const maxSkew = opts.maxSkewMs ?? DEFAULT_MAX_SKEW_MS;
  if (Math.abs(opts.now.getTime() - requestTime.getTime()) > maxSkew) {
    throw new SigV4Error('RequestTimeTooSkewed',
      'The difference between the request time and the current time is too large.',
      { details: {
        RequestTime: requestTime.toISOString(),
        ServerTime: opts.now.toISOString(),
        MaxAllowedSkewMilliseconds: String(maxSkew),
      } });
  }
}

/** Finds the secret of an access key, or throws InvalidAccessKeyId. */
export async function lookupOrThrow(lookup: LookupSecret, accessKey: string): Promise<string> {
  const secret = await lookup(accessKey);
  if (secret === undefined) {
    throw new SigV4Error('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.',
      { details: { AWSAccessKeyId: accessKey } });
  }
  return secret;
}
