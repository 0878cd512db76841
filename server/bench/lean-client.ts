/**
 * A lean S3 client for the benchmark's hot loops: keep-alive HTTP/1.1 (raw-http.ts) and SigV4 header signing with
 * UNSIGNED-PAYLOAD (https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html), nothing else.
 * Why not the AWS SDK here: its middleware stack costs ~0.3 ms of CPU per request on this 2-vCPU machine, where
 * client and server share the cores, so at 4 KiB it measured the SDK rather than the server (the issue's peer
 * figures come from a lean harness too). The transport went node:http → undici (0.084–0.087 → 0.064 ms of client
 * CPU per 4 KiB GET at 16 in flight) → raw-http.ts (which says why), CPU the server shares. Peers measured with
 * `--endpoint` get the same client. The SDK still drives the multipart scenario (lib-storage, as apps use it).
 */
import type { Readable } from 'node:stream';
import { RawHttp } from './raw-http.js';
import { canonicalRequest, stringToSign } from '../src/auth/sigv4/canonical-request.js';
import { uriEncode } from '../src/auth/sigv4/encoding.js';
import { deriveSigningKey, hmacHex } from '../src/auth/sigv4/signing-key.js';

const REGION = 'us-east-1';
const UNSIGNED = 'UNSIGNED-PAYLOAD';

/** Result of one request: status and the number of body bytes read (the body itself is dropped). */
export interface LeanResponse {
  status: number;
  bytes: number;
  /** The body as text when asked for (listings); otherwise ''. */
  text: string;
}

/** One endpoint with one credential. */
export class LeanS3 {
  readonly #url: URL;
  readonly #accessKey: string;
  readonly #secret: string;
  readonly #http: RawHttp;
  #day = '';
  #key: Buffer = Buffer.alloc(0);

  constructor(endpoint: string, accessKey: string, secretKey: string) {
    this.#url = new URL(endpoint);
    this.#accessKey = accessKey;
    this.#secret = secretKey;
    this.#http = new RawHttp(this.#url.origin);
  }

  #sign(method: string, path: string, query: string, extra: Record<string, string>): Record<string, string> {
    const amzDate = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
    const day = amzDate.slice(0, 8);
    if (day !== this.#day) { this.#day = day; this.#key = deriveSigningKey(this.#secret, day, REGION, 's3'); }
    const headers: Record<string, string> = { host: this.#url.host, 'x-amz-content-sha256': UNSIGNED, 'x-amz-date': amzDate, ...extra };
    const names = Object.keys(headers).map((h) => h.toLowerCase()).sort();
    const canon = canonicalRequest({
      method, canonicalUri: path, canonicalQuery: query,
      canonicalHeaders: names.map((n) => `${n}:${headers[n]!.trim()}\n`).join(''), signedHeaders: names, payloadHash: UNSIGNED,
    });
    const scope = `${day}/${REGION}/s3/aws4_request`;
    const sig = hmacHex(this.#key, stringToSign(amzDate, scope, canon));
    headers.authorization = `AWS4-HMAC-SHA256 Credential=${this.#accessKey}/${scope}, SignedHeaders=${names.join(';')}, Signature=${sig}`;
    return headers;
  }

  /** Sends one request; `body` is a Buffer or a stream of `size` bytes. Rejects on a non-2xx status. */
  async send(method: string, bucket: string, key: string, opts: { query?: string; body?: Buffer | Readable; size?: number; text?: boolean } = {}): Promise<LeanResponse> {
    const path = `/${uriEncode(bucket)}${key === '' ? '' : `/${uriEncode(key, true)}`}`;
    const query = opts.query ?? '';
    const size = opts.body === undefined ? 0 : Buffer.isBuffer(opts.body) ? opts.body.length : opts.size ?? 0;
    const extra: Record<string, string> = method === 'PUT' || method === 'POST' ? { 'content-length': String(size) } : {};
    const headers = this.#sign(method, path, query, extra);
    const res = await this.#http.request(method, query === '' ? path : `${path}?${query}`, headers, opts.body, opts.text === true ? true : undefined);
    const text = opts.text === true || res.status >= 300 ? res.body.toString('utf8') : '';
    if (res.status >= 300) throw new Error(`${method} ${path}?${query}: HTTP ${res.status} ${text.slice(0, 300)}`);
    return { status: res.status, bytes: res.bytes, text: opts.text === true ? text : '' };
  }

  put(bucket: string, key: string, body: Buffer | Readable, size?: number): Promise<LeanResponse> {
    return this.send('PUT', bucket, key, { body, size });
  }

  /** GET of a whole object: resolves with the number of bytes received. */
  async get(bucket: string, key: string): Promise<number> {
    return (await this.send('GET', bucket, key)).bytes;
  }

  /** One ListObjectsV2 page: the keys counted and the continuation token (read from the XML by pattern). */
  async listPage(bucket: string, prefix: string, token: string | undefined): Promise<{ keys: number; next: string | undefined }> {
    const params = [['list-type', '2'], ['prefix', prefix], ...(token === undefined ? [] : [['continuation-token', token]])]
      .map(([k, v]) => `${uriEncode(k!)}=${uriEncode(v!)}`).sort().join('&');
    const { text } = await this.send('GET', bucket, '', { query: params, text: true });
    const keys = text.match(/<Key>/g)?.length ?? 0;
    const next = /<NextContinuationToken>([^<]*)<\/NextContinuationToken>/.exec(text)?.[1];
    return { keys, next: next === undefined ? undefined : next.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'") };
  }

  destroy(): void {
    this.#http.destroy();
  }
}
