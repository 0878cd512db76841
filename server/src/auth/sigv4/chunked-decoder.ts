import { createHash, type Hash } from 'node:crypto';
import { CHUNK_STS_ALGORITHM, EMPTY_SHA256, TRAILER_STS_ALGORITHM } from './constants.js';
import { hmacHex, sha256Hex, signaturesEqual } from './signing-key.js';
import { SigV4Error } from './sigv4-errors.js';

/**
 * Incremental parser of `Content-Encoding: aws-chunked` bodies:
 *   chunk   = hex-size [";chunk-signature=" sig] CRLF data CRLF      (last chunk: size 0, no data line)
 *   trailer = *(name ":" value CRLF) ["x-amz-trailer-signature:" sig CRLF] CRLF
 * Bytes may arrive split anywhere. Data is handed out as soon as it arrives (never a whole chunk buffered);
 * each chunk signature is checked when its data is complete, chained from the seed signature.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming-trailers.html
 */

/** Key material to check chunk signatures (signed STREAMING-* modes). */
export interface ChunkSigning {
  key: Buffer;
  amzDate: string;
  scope: string;
  seedSignature: string;
}

/** Parser configuration. */
export interface ChunkedOptions {
  /** Present for the signed modes; chunk (and trailer) signatures are then mandatory. */
  signing?: ChunkSigning;
  /** Whether a trailer section follows the final chunk (the *-TRAILER modes). */
  trailers: boolean;
}

/** A trailing header as received (name lower-cased, value trimmed). */
export interface Trailer {
  name: string;
  value: string;
}

const MAX_LINE = 4096;
const MAX_TRAILER_BYTES = 16 * 1024;
const CR = 0x0d;
const LF = 0x0a;

type State = 'size' | 'data' | 'data-crlf' | 'end-crlf' | 'trailer' | 'done';

const malformed = (what: string): SigV4Error => new SigV4Error('InvalidRequest', `Malformed aws-chunked body: ${what}.`);
const truncated = (): SigV4Error => new SigV4Error('IncompleteBody', 'The request body terminated unexpectedly (aws-chunked framing incomplete).');
const badChunkSignature = (): SigV4Error => new SigV4Error('SignatureDoesNotMatch',
  'The request signature we calculated does not match the signature you provided. Check your key and signing method. (aws-chunked chunk signature)');

/** The aws-chunked state machine; feed it with `write`, then call `end` once the source is exhausted. */
export class AwsChunkedParser {
  readonly #signing: ChunkSigning | undefined;
  readonly #expectTrailers: boolean;
  #state: State = 'size';
  #line: number[] = [];
  #remaining = 0;
  #crlfSeen = 0;
  #previousSignature: string;
  #pendingSignature = '';
  #chunkHash: Hash | undefined;
  #trailerBytes = 0;
  #trailerCanonical = '';
  #trailerSignature: string | undefined;
  readonly trailers: Trailer[] = [];

  constructor(opts: ChunkedOptions) {
    this.#signing = opts.signing;
    this.#expectTrailers = opts.trailers;
    this.#previousSignature = opts.signing?.seedSignature ?? '';
  }

  /** Consumes bytes; `emit` receives decoded data slices (views into `buf`). Throws SigV4Error. */
  write(buf: Buffer, emit: (data: Buffer) => void): void {
    let i = 0;
    while (i < buf.length) {
      switch (this.#state) {
        case 'size':
        case 'trailer': {
          const lf = buf.indexOf(LF, i);
          const end = lf < 0 ? buf.length : lf;
          if (this.#line.length + (end - i) > MAX_LINE) throw malformed('line too long');
          for (let k = i; k < end; k++) this.#line.push(buf[k]!);
          i = end;
          if (lf < 0) break;
          i = lf + 1;
          const line = this.#takeLine(this.#state === 'size');
          if (this.#state === 'size') this.#onChunkHeader(line);
          else this.#onTrailerLine(line);
          break;
        }
        case 'data': {
          const n = Math.min(this.#remaining, buf.length - i);
          const slice = buf.subarray(i, i + n);
          this.#chunkHash?.update(slice);
          emit(slice);
          this.#remaining -= n;
          i += n;
          if (this.#remaining === 0) {
            this.#verifyChunk(this.#chunkHash);
            this.#state = 'data-crlf';
            this.#crlfSeen = 0;
          }
          break;
        }
        case 'data-crlf':
        case 'end-crlf': {
          const expected = this.#crlfSeen === 0 ? CR : LF;
          if (buf[i] !== expected) throw malformed(this.#state === 'data-crlf' ? 'chunk data not followed by CRLF' : 'final chunk not followed by CRLF');
          i++;
          if (++this.#crlfSeen === 2) this.#state = this.#state === 'data-crlf' ? 'size' : 'done';
          break;
        }
        case 'done': {
          // Tolerate stray line breaks after the final CRLF; anything else is not aws-chunked.
          if (buf[i] !== CR && buf[i] !== LF) throw malformed('data after the final chunk');
          i++;
          break;
        }
      }
    }
  }

  /** Called at end of input: throws IncompleteBody (or a trailer error) unless the body was complete. */
  end(): void {
    switch (this.#state) {
      case 'done':
        return;
      case 'end-crlf':
        // "0;chunk-signature=...\r\n" without the closing CRLF: complete enough, every signature was checked.
        if (this.#crlfSeen === 0) return;
        throw truncated();
      case 'trailer':
        // A sender may omit the blank line after the trailers (or the whole empty trailer section).
        if (this.#line.length === 0) { this.#finishTrailers(); return; }
        throw truncated();
      default:
        throw truncated();
    }
  }

  #takeLine(strictCrlf: boolean): string {
    const bytes = this.#line;
    this.#line = [];
    if (bytes.length > 0 && bytes[bytes.length - 1] === CR) bytes.pop();
    else if (strictCrlf) throw malformed('chunk header not terminated by CRLF');
    return Buffer.from(bytes).toString('latin1');
  }

  #onChunkHeader(line: string): void {
    const semi = line.indexOf(';');
    const sizeText = (semi < 0 ? line : line.slice(0, semi)).trim();
    if (!/^[0-9a-fA-F]{1,13}$/.test(sizeText)) throw malformed(`invalid chunk size "${sizeText.slice(0, 32)}"`);
    const size = parseInt(sizeText, 16);
    if (this.#signing !== undefined) {
      const ext = semi < 0 ? '' : line.slice(semi + 1).trim();
      const m = /^chunk-signature=([0-9a-fA-F]{64})$/.exec(ext);
      if (m === null) throw badChunkSignature();
      this.#pendingSignature = m[1]!.toLowerCase();
      this.#chunkHash = createHash('sha256');
    }
    if (size === 0) {
      this.#verifyChunk(this.#chunkHash);
      this.#state = this.#expectTrailers ? 'trailer' : 'end-crlf';
      this.#crlfSeen = 0;
      return;
    }
    this.#remaining = size;
    this.#state = 'data';
  }

  #verifyChunk(hash: Hash | undefined): void {
    const s = this.#signing;
    if (s === undefined) return;
    const dataHash = hash === undefined ? EMPTY_SHA256 : hash.digest('hex');
    const sts = [CHUNK_STS_ALGORITHM, s.amzDate, s.scope, this.#previousSignature, EMPTY_SHA256, dataHash].join('\n');
    if (!signaturesEqual(hmacHex(s.key, sts), this.#pendingSignature)) throw badChunkSignature();
    this.#previousSignature = this.#pendingSignature;
    this.#chunkHash = undefined;
  }

  #onTrailerLine(line: string): void {
    if (line === '') { this.#finishTrailers(); return; }
    this.#trailerBytes += line.length;
    if (this.#trailerBytes > MAX_TRAILER_BYTES) throw new SigV4Error('MalformedTrailerError', 'The trailing headers are too large.');
    const colon = line.indexOf(':');
    if (colon <= 0) throw new SigV4Error('MalformedTrailerError', 'The request contained trailing data that was not well-formed.');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'x-amz-trailer-signature') {
      if (this.#signing === undefined || this.#trailerSignature !== undefined) {
        throw new SigV4Error('MalformedTrailerError', 'Unexpected x-amz-trailer-signature trailer.');
      }
      this.#trailerSignature = value.toLowerCase();
      return;
    }
    if (this.#trailerSignature !== undefined) {
      throw new SigV4Error('MalformedTrailerError', 'x-amz-trailer-signature must be the last trailing header.');
    }
    this.trailers.push({ name, value });
    this.#trailerCanonical += `${name}:${value}\n`;
  }

  #finishTrailers(): void {
    const s = this.#signing;
    if (s !== undefined && (this.trailers.length > 0 || this.#trailerSignature !== undefined)) {
      if (this.#trailerSignature === undefined) {
        throw new SigV4Error('SignatureDoesNotMatch', 'The x-amz-trailer-signature trailing header is missing.');
      }
      const sts = [TRAILER_STS_ALGORITHM, s.amzDate, s.scope, this.#previousSignature, sha256Hex(this.#trailerCanonical)].join('\n');
      if (!signaturesEqual(hmacHex(s.key, sts), this.#trailerSignature)) {
        throw new SigV4Error('SignatureDoesNotMatch',
          'The request signature we calculated does not match the signature you provided. Check your key and signing method. (trailer signature)');
      }
    }
    this.#state = 'done';
  }
}
