import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest, SourceData } from '@smithy/types';
import type { SigV4Request } from './types.js';

/**
 * Test-only client side: requests signed by the AWS SDK's own signer (@smithy/signature-v4), and
 * aws-chunked bodies whose chunk/trailer signatures come from that signer's string signing.
 * Nothing here reuses the verifier's code, so a round trip checks it against an independent signer.
 */

export const ACCESS_KEY = 'AKIDROUNDTRIP';
export const SECRET = 'round/trip+secret';
export const REGION = 'eu-central-1';
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** A smithy HashConstructor backed by node:crypto. */
function bytes(data: SourceData): Uint8Array | string {
  if (typeof data === 'string') return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}

class NodeSha256 {
  #secret: Uint8Array | string | undefined;
  #h: Hash | Hmac;
  constructor(secret?: SourceData) {
    this.#secret = secret === undefined ? undefined : bytes(secret);
    this.#h = this.#secret === undefined ? createHash('sha256') : createHmac('sha256', this.#secret);
  }
  update(data: SourceData): void { this.#h.update(bytes(data)); }
  async digest(): Promise<Uint8Array> { return new Uint8Array(this.#h.digest()); }
  reset(): void { this.#h = this.#secret === undefined ? createHash('sha256') : createHmac('sha256', this.#secret); }
}

export function sdkSigner(region = REGION, secret = SECRET): SignatureV4 {
  return new SignatureV4({
    credentials: { accessKeyId: ACCESS_KEY, secretAccessKey: secret },
    region, service: 's3', sha256: NodeSha256, uriEscapePath: false, applyChecksum: false,
  });
}

export const lookup = async (key: string): Promise<string | undefined> => (key === ACCESS_KEY ? SECRET : undefined);

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** RFC 3986 encoding the way SDKs build query strings. */
function enc(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function queryString(query: Record<string, string | string[] | null> | undefined): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === null) parts.push(enc(k));
    else for (const one of Array.isArray(v) ? v : [v]) parts.push(`${enc(k)}=${enc(one)}`);
  }
  return parts.join('&');
}

function toWire(req: HttpRequest): SigV4Request {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = v;
  return { method: req.method, rawPath: req.path, rawQuery: queryString(req.query as Record<string, string | string[] | null>), headers };
}

export interface SignInput {
  method?: string;
  /** Already percent-encoded, as sent on the wire. */
  path: string;
  query?: Record<string, string | string[]>;
  headers?: Record<string, string>;
  /** x-amz-content-sha256 value; default the hash of the empty body. */
  contentSha256?: string;
  host?: string;
}

function request(input: SignInput, signingDate: Date): HttpRequest {
  return {
    method: input.method ?? 'GET', protocol: 'http:', hostname: input.host ?? 'bucket.s3.example.test', path: input.path,
    query: input.query ?? {},
    headers: {
      host: input.host ?? 'bucket.s3.example.test',
      'x-amz-content-sha256': input.contentSha256 ?? EMPTY_SHA256,
      ...input.headers,
    },
  };
}

/** A request signed with an Authorization header by the SDK signer. */
export async function signWithHeader(input: SignInput, signingDate: Date, signer = sdkSigner()): Promise<SigV4Request> {
  const signed = await signer.sign(request(input, signingDate), { signingDate });
  return toWire(signed);
}

/**
 * A presigned request produced by the SDK signer, prepared as @aws-sdk/s3-request-presigner does
 * (X-Amz-Content-Sha256: UNSIGNED-PAYLOAD, hoisted into the query by the signer).
 */
export async function presign(input: SignInput, signingDate: Date, expiresIn: number, signer = sdkSigner()): Promise<SigV4Request> {
  const req = request({ ...input, contentSha256: 'UNSIGNED-PAYLOAD' }, signingDate);
  delete req.headers['x-amz-content-sha256'];
  req.headers['X-Amz-Content-Sha256'] = 'UNSIGNED-PAYLOAD';
  const signed = await signer.presign(req, { signingDate, expiresIn });
  return toWire(signed);
}

/** Extracts the seed signature from a header-signed request. */
export function seedSignatureOf(req: SigV4Request): string {
  const m = /Signature=([0-9a-f]{64})/.exec(String(req.headers['authorization']));
  if (m === null) throw new Error('no signature');
  return m[1]!;
}

function amzDate(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

/**
 * Builds an aws-chunked body. With `seed`, chunks (and the trailer, when given) are signed by chaining
 * from the seed signature; otherwise the unsigned-trailer framing is produced.
 */
export async function chunkedBody(opts: {
  chunks: Buffer[];
  signingDate: Date;
  seed?: string;
  trailer?: { name: string; value: string };
  signer?: SignatureV4;
}): Promise<Buffer> {
  const signer = opts.signer ?? sdkSigner();
  const date = amzDate(opts.signingDate);
  const scope = `${date.slice(0, 8)}/${REGION}/s3/aws4_request`;
  const sign = (sts: string): Promise<string> => signer.sign(sts, { signingDate: opts.signingDate });
  const out: Buffer[] = [];
  let previous = opts.seed;
  for (const data of [...opts.chunks, Buffer.alloc(0)]) {
    if (previous === undefined) {
      out.push(Buffer.from(`${data.length.toString(16)}\r\n`));
    } else {
      previous = await sign(['AWS4-HMAC-SHA256-PAYLOAD', date, scope, previous, EMPTY_SHA256, sha256Hex(data)].join('\n'));
      out.push(Buffer.from(`${data.length.toString(16)};chunk-signature=${previous}\r\n`));
    }
    if (data.length > 0) out.push(data, Buffer.from('\r\n'));
  }
  if (opts.trailer !== undefined) {
    const line = `${opts.trailer.name}:${opts.trailer.value}`;
    out.push(Buffer.from(`${line}\r\n`));
    if (previous !== undefined) {
      const sig = await sign(['AWS4-HMAC-SHA256-TRAILER', date, scope, previous, sha256Hex(`${line}\n`)].join('\n'));
      out.push(Buffer.from(`x-amz-trailer-signature:${sig}\r\n`));
    }
  }
  out.push(Buffer.from('\r\n'));
  return Buffer.concat(out);
}
