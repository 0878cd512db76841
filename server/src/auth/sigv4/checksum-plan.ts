import {
  checksumAlgorithmFromHeaderName,
  decodeChecksumValue,
  parseChecksumAlgorithm,
  type ChecksumAlgorithm,
} from '../../common/index.js';
import { H } from './constants.js';
import { headerValue } from './headers.js';
import { SigV4Error } from './sigv4-errors.js';
import type { PayloadMode, SigV4Headers } from './types.js';

/**
 * Which additional checksum (if any) a request asks the server to compute and verify.
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html
 */
export interface ChecksumPlan {
  algorithm: ChecksumAlgorithm;
  /** Base64 value from an x-amz-checksum-<alg> header; undefined when it comes in a trailer or not at all. */
  expected?: string;
  /** Lower-case trailer name announced by x-amz-trailer, when the value comes in a trailer. */
  trailer?: string;
}

const invalid = (msg: string): SigV4Error => new SigV4Error('InvalidRequest', msg);

/**
 * Reads x-amz-checksum-<alg>, x-amz-trailer and x-amz-sdk-checksum-algorithm. Only one checksum may be
 * given; the SDK algorithm header alone asks for a computed value. Returns undefined when no checksum
 * is involved.
 */
export function planChecksum(mode: PayloadMode, headers: SigV4Headers): ChecksumPlan | undefined {
  const fromHeaders: { name: string; algorithm: ChecksumAlgorithm }[] = [];
  for (const name of Object.keys(headers)) {
    const algorithm = checksumAlgorithmFromHeaderName(name);
    if (algorithm !== undefined && headers[name] !== undefined) fromHeaders.push({ name: name.toLowerCase(), algorithm });
  }
  const trailerNames = (headerValue(headers, H.trailer) ?? '').split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  const trailerAlgorithms = trailerNames.map((name) => {
    const algorithm = checksumAlgorithmFromHeaderName(name);
    if (algorithm === undefined) throw invalid(`The value specified in the x-amz-trailer header is not supported: ${name}`);
    return { name, algorithm };
  });
  if (trailerAlgorithms.length > 0 && mode !== 'streaming-signed-trailer' && mode !== 'streaming-unsigned-trailer') {
    throw invalid('x-amz-trailer requires x-amz-content-sha256 STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER or STREAMING-UNSIGNED-PAYLOAD-TRAILER.');
  }
  if (fromHeaders.length + trailerAlgorithms.length > 1) {
    throw invalid('Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.');
  }

  const sdkValue = headerValue(headers, H.sdkChecksumAlgorithm);
  const sdkAlgorithm = sdkValue === undefined ? undefined : parseChecksumAlgorithm(sdkValue);
  if (sdkValue !== undefined && sdkAlgorithm === undefined) {
    throw invalid('Value for x-amz-sdk-checksum-algorithm header is invalid.');
  }

  const given = fromHeaders[0] ?? trailerAlgorithms[0];
  if (given !== undefined && sdkAlgorithm !== undefined && sdkAlgorithm !== given.algorithm) {
    throw invalid(`x-amz-sdk-checksum-algorithm ${sdkAlgorithm} does not match the ${given.name} checksum.`);
  }
  const header = fromHeaders[0];
  if (header !== undefined) {
    const value = (headerValue(headers, header.name) ?? '').trim();
    if (decodeChecksumValue(header.algorithm, value) === undefined) {
      throw invalid(`Value for ${header.name} header is invalid.`);
    }
    return { algorithm: header.algorithm, expected: value };
  }
  const trailer = trailerAlgorithms[0];
  if (trailer !== undefined) return { algorithm: trailer.algorithm, trailer: trailer.name };
  return sdkAlgorithm === undefined ? undefined : { algorithm: sdkAlgorithm };
}
