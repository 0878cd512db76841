import { randomBytes } from 'node:crypto';

/**
 * A fresh request id in the shape AWS uses for `x-amz-request-id` (16 upper-case hex characters),
 * so clients and proxies that log it see a familiar value.
 */
export function newRequestId(): string {
  return randomBytes(8).toString('hex').toUpperCase();
}

/**
 * A fresh extended request id for `x-amz-id-2`. AWS sends an opaque base64 string; SDKs surface it as
 * `extendedRequestId`, so it only has to be unique per response.
 */
export function newHostId(): string {
  return randomBytes(24).toString('base64');
}
