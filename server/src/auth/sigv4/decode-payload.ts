import { createHash, type Hash } from 'node:crypto';
import { finished, Transform, type Readable, type TransformCallback } from 'node:stream';
import {
  checksumAlgorithmFromHeaderName,
  createChecksum,
  decodeChecksumValue,
  type ChecksumHasher,
} from '../../common/index.js';
import { AwsChunkedParser, type ChunkSigning } from './chunked-decoder.js';
import { planChecksum, type ChecksumPlan } from './checksum-plan.js';
import { H } from './constants.js';
import { headerValue } from './headers.js';
import { isStreaming } from './payload-mode.js';
import { signingKeyOf } from './signing-context.js';
import { SigV4Error } from './sigv4-errors.js';
import type { DecodedPayload, PayloadChecksum, SigV4Headers, VerifiedRequest } from './types.js';

/**
 * Turns a verified request's body into plain object bytes and checks it while it streams:
 * aws-chunked framing and chunk/trailer signatures, the signed SHA-256, x-amz-checksum-* values,
 * and the announced length. Failures surface as a SigV4Error on `stream` before 'end'.
 *
 * Flow control: `body` is piped (backpressure preserved). An error or early close of `body` (client gone)
 * errors `stream` with IncompleteBody. When `stream` fails a check or is destroyed by its consumer, `body`
 * is unpiped and drained rather than destroyed, so the HTTP layer can still send an error reply (it may
 * add `Connection: close` to stop a client that keeps uploading; node's requestTimeout bounds the rest).
 *
 * Throws synchronously (SigV4Error) for invalid checksum/length headers. `verified` must be the object
 * returned by verifyRequest (it carries the signing key for signed aws-chunked bodies).
 */
export function decodePayload(verified: VerifiedRequest, body: Readable, headers: SigV4Headers): DecodedPayload {
  const mode = verified.payload;
  const plan = planChecksum(mode, headers);
  const streaming = isStreaming(mode);

  let signing: ChunkSigning | undefined;
  if (mode === 'streaming-signed' || mode === 'streaming-signed-trailer') {
    const key = verified.anonymous ? undefined : signingKeyOf(verified);
    if (verified.anonymous || key === undefined) {
      throw new TypeError('decodePayload: signed aws-chunked bodies need the very object returned by verifyRequest');
    }
    signing = { key, amzDate: verified.amzDate, scope: verified.scope, seedSignature: verified.signature.toLowerCase() };
  }

  const lengthHeader = streaming ? H.decodedContentLength : H.contentLength;
  const declared = parseLength(headers, lengthHeader);
  if (declared < 0 && signing !== undefined) {
    throw new SigV4Error('MissingContentLength', 'aws-chunked uploads must send x-amz-decoded-content-length.');
  }

  const decoder = new PayloadDecoder({
    parser: streaming ? new AwsChunkedParser({ trailers: mode !== 'streaming-signed', ...(signing ? { signing } : {}) }) : undefined,
    declared,
    lengthHeader,
    sha256: mode === 'sha256' ? verified.payloadSha256 : undefined,
    plan,
  });
  connect(body, decoder);
  return { stream: decoder, decodedLength: declared, checksum: () => decoder.checksum };
}

function parseLength(headers: SigV4Headers, name: string): number {
  const v = headerValue(headers, name)?.trim();
  if (v === undefined) return -1;
  if (!/^\d{1,16}$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw new SigV4Error('InvalidArgument', `${name} must be a non-negative integer.`,
      { details: { ArgumentName: name, ArgumentValue: v } });
  }
  return Number(v);
}

function connect(body: Readable, decoder: PayloadDecoder): void {
  // finished() also reports a premature close (socket dropped before the body ended).
  finished(body, (err) => {
    if (err && !decoder.destroyed) {
      decoder.destroy(new SigV4Error('IncompleteBody', 'The request body terminated unexpectedly.', { cause: err }));
    }
  });
  decoder.once('close', () => {
    body.unpipe(decoder);
    if (!body.readableEnded && !body.destroyed) body.resume();
  });
  body.pipe(decoder);
}

interface DecoderOptions {
  parser: AwsChunkedParser | undefined;
  declared: number;
  lengthHeader: string;
  sha256: string | undefined;
  plan: ChecksumPlan | undefined;
}

class PayloadDecoder extends Transform {
  readonly #parser: AwsChunkedParser | undefined;
  readonly #declared: number;
  readonly #lengthHeader: string;
  readonly #expectedSha256: string | undefined;
  readonly #sha256: Hash | undefined;
  readonly #plan: ChecksumPlan | undefined;
  readonly #hasher: ChecksumHasher | undefined;
  readonly #emit = (data: Buffer): void => this.#emitData(data);
  #count = 0;
  checksum: PayloadChecksum | undefined;

  constructor(opts: DecoderOptions) {
    super();
    this.#parser = opts.parser;
    this.#declared = opts.declared;
    this.#lengthHeader = opts.lengthHeader;
    this.#expectedSha256 = opts.sha256;
    this.#sha256 = opts.sha256 === undefined ? undefined : createHash('sha256');
    this.#plan = opts.plan;
    this.#hasher = opts.plan === undefined ? undefined : createChecksum(opts.plan.algorithm);
  }

  override _transform(chunk: Buffer | string, _enc: BufferEncoding, cb: TransformCallback): void {
    try {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      if (this.#parser === undefined) this.#emitData(buf);
      else this.#parser.write(buf, this.#emit);
      cb();
    } catch (err) {
      cb(err as Error);
    }
  }

  override _flush(cb: TransformCallback): void {
    try {
      this.#finish();
      cb();
    } catch (err) {
      cb(err as Error);
    }
  }

  #emitData(data: Buffer): void {
    if (data.length === 0) return;
    this.#count += data.length;
    if (this.#declared >= 0 && this.#count > this.#declared) {
      throw new SigV4Error('InvalidRequest', `The request body is longer than ${this.#lengthHeader} (${this.#declared}).`);
    }
    this.#sha256?.update(data);
    this.#hasher?.update(data);
    this.push(data);
  }

  #finish(): void {
    this.#parser?.end();
    if (this.#declared >= 0 && this.#count < this.#declared) {
      throw new SigV4Error('IncompleteBody',
        `You did not provide the number of bytes specified by the ${this.#lengthHeader} HTTP header (${this.#count} of ${this.#declared}).`);
    }
    if (this.#sha256 !== undefined && this.#sha256.digest('hex') !== this.#expectedSha256) {
      throw new SigV4Error('XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.");
    }
    this.#finishChecksum();
  }

  #finishChecksum(): void {
    const plan = this.#plan;
    const checksumTrailers = (this.#parser?.trailers ?? []).filter((t) => checksumAlgorithmFromHeaderName(t.name) !== undefined);
    if (checksumTrailers.length > 1) {
      throw new SigV4Error('MalformedTrailerError', 'Expecting a single x-amz-checksum- trailer.');
    }
    const trailer = checksumTrailers[0];
    let expected = plan?.expected;
    if (trailer !== undefined) {
      const algorithm = checksumAlgorithmFromHeaderName(trailer.name)!;
      if (plan === undefined || plan.expected !== undefined || plan.algorithm !== algorithm) {
        throw new SigV4Error('MalformedTrailerError', `The trailing header ${trailer.name} was not announced in x-amz-trailer.`);
      }
      if (decodeChecksumValue(algorithm, trailer.value) === undefined) {
        throw new SigV4Error('InvalidRequest', `Value for ${trailer.name} trailing header is invalid.`);
      }
      expected = trailer.value;
    } else if (plan?.trailer !== undefined) {
      throw new SigV4Error('MalformedTrailerError', `The x-amz-trailer header announced ${plan.trailer}, but that trailer was not sent.`);
    }
    if (plan === undefined || this.#hasher === undefined) return;
    const value = this.#hasher.digestBase64();
    if (expected !== undefined && expected !== value) {
      throw new SigV4Error('BadDigest', `The ${plan.algorithm} you specified did not match the calculated checksum.`,
        { details: { ExpectedChecksum: expected, CalculatedChecksum: value } });
    }
    this.checksum = Object.freeze({ algorithm: plan.algorithm, value });
  }
}
