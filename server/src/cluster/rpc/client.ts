/**
 * Client side of the storage RPC: one undici Pool per peer (keep-alive connections reused across calls), a
 * deadline on every call, and typed errors — a wire error is rebuilt into its class (rpc-errors.ts), a peer that
 * is down or does not answer in time is an RpcUnavailableError, never a hang.
 */
import { PassThrough } from 'node:stream';
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import { RpcTokenSource } from './auth.js';
import type { RpcCredentials } from './auth.js';
import { CallBatcher } from './call-batcher.js';
import type { CallOutcome } from './call-batcher.js';
import { MAX_SHARD_READ, RPC_BATCH_PATH, RPC_PROTOCOL_VERSION, RPC_VERSION_HEADER, decodeValue, drivePath, encodeValue } from './protocol.js';
import type { BatchCall, BatchResult, DriveMethod } from './protocol.js';
import { RpcAuthError, RpcProtocolError, RpcUnavailableError, fromWireError } from './rpc-errors.js';
import type { WireError } from './rpc-errors.js';

/** Options of {@link RpcClient}. */
export interface RpcClientOptions {
  /** `http://host:port` of the peer. */
  origin: string;
  credentials: RpcCredentials;
  /** Deadline of one call, and of each step of a streaming upload (default 10 s). */
  timeoutMs?: number;
  /** TCP connect deadline (default 3 s). */
  connectTimeoutMs?: number;
  /** Most parallel connections to this peer (default 128). */
  connections?: number;
  now?: () => number;
}

/** A streaming upload in progress (shard data). */
export interface RpcUpload {
  /** Sends the buffers (copied: the caller may reuse them once this resolves); waits while the peer is slow. */
  write(buffers: readonly Uint8Array[]): Promise<void>;
  /** Ends the body and returns the call's value. */
  finish(): Promise<unknown>;
  /** Abandons the upload (the peer sees the request aborted). */
  abort(): Promise<void>;
}

const UPLOAD_HIGH_WATER = 256 * 1024;

function isAbort(err: unknown): boolean {
  const name = (err as { name?: string } | null)?.name;
  const code = (err as { code?: string } | null)?.code;
  return name === 'AbortError' || name === 'TimeoutError' || code === 'UND_ERR_ABORTED'
    || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT';
}

/** RPC client for one peer. */
export class RpcClient {
  readonly origin: string;
  readonly #pool: Pool;
  readonly #tokens: RpcTokenSource;
  readonly #timeoutMs: number;
  readonly #batcher: CallBatcher;

  constructor(opts: RpcClientOptions) {
    this.origin = opts.origin.replace(/\/+$/, '');
    this.#timeoutMs = opts.timeoutMs ?? 10_000;
    this.#tokens = new RpcTokenSource(opts.credentials, opts.now);
    this.#pool = new Pool(this.origin, {
      connections: opts.connections ?? 128,
      connectTimeout: opts.connectTimeoutMs ?? 3_000,
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
      keepAliveTimeout: 30_000,
    });
    this.#batcher = new CallBatcher({
      single: (c) => this.call(drivePath(c.drive, c.method), c.args),
      batch: (calls) => this.#batch(calls),
    });
  }

  /** A JSON call of a drive method: batched with the other calls to this peer made in the same tick. */
  driveCall(drive: string, method: DriveMethod, args: readonly unknown[]): Promise<unknown> {
    return this.#batcher.call({ drive, method, args: [...args] });
  }

  /**
   * One batch request. The peer answers a call still running after 80 % of our deadline with its own
   * ERR_RPC_UNAVAILABLE, so the others' answers arrive before this request's deadline ends them all.
   */
  async #batch(calls: readonly BatchCall[]): Promise<CallOutcome[]> {
    const body = JSON.stringify({
      deadlineMs: Math.max(1, Math.floor(this.#timeoutMs * 0.8)),
      calls: calls.map((c) => ({ drive: c.drive, method: c.method, args: encodeValue(c.args) })),
    });
    let res: Dispatcher.ResponseData;
    try {
      res = await this.#pool.request({
        method: 'POST', path: RPC_BATCH_PATH, headers: this.#headers('application/json'), body, signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (err) {
      throw this.#transportError(err, RPC_BATCH_PATH);
    }
    if (res.statusCode !== 200) throw await this.#failure(res);
    let results: BatchResult[] | undefined;
    try {
      results = ((await res.body.json()) as { results?: BatchResult[] }).results;
    } catch (err) {
      throw this.#transportError(err, RPC_BATCH_PATH);
    }
    if (!Array.isArray(results) || results.length !== calls.length) {
      throw new RpcProtocolError(`node ${this.origin} answered a batch of ${calls.length} calls with ${Array.isArray(results) ? results.length : 'no'} results`);
    }
    return results.map((r): CallOutcome => ('error' in r && r.error !== undefined
      ? { ok: false, error: fromWireError(r.error, this.origin) }
      : { ok: true, value: decodeValue((r as { value?: unknown }).value) }));
  }

  #headers(contentType: string): Record<string, string> {
    return { authorization: this.#tokens.header(), [RPC_VERSION_HEADER]: RPC_PROTOCOL_VERSION, 'content-type': contentType };
  }

  #transportError(err: unknown, what: string): Error {
    if (err instanceof RpcAuthError || err instanceof RpcProtocolError || err instanceof RpcUnavailableError) return err;
    const reason = isAbort(err) ? `no answer to ${what} within ${this.#timeoutMs} ms` : `${what}: ${(err as Error).message}`;
    return new RpcUnavailableError(this.origin, reason, { cause: err });
  }

  /** Turns a non-200 answer into the rebuilt typed error. */
  async #failure(res: Dispatcher.ResponseData): Promise<Error> {
    if (res.statusCode === 403) {
      await res.body.dump();
      return new RpcAuthError(this.origin);
    }
    let wire: WireError | undefined;
    try {
      wire = ((await res.body.json()) as { error?: WireError }).error;
    } catch { /* not our JSON */ }
    if (wire === undefined || typeof wire.code !== 'string') return new RpcProtocolError(`node ${this.origin} answered HTTP ${res.statusCode}`);
    return fromWireError(wire, this.origin);
  }

  /** JSON call: `POST path {"args"}` → value. */
  async call(path: string, args: readonly unknown[]): Promise<unknown> {
    const body = JSON.stringify({ args: encodeValue(args) });
    let res: Dispatcher.ResponseData;
    try {
      res = await this.#pool.request({
        method: 'POST', path, headers: this.#headers('application/json'), body, signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (err) {
      throw this.#transportError(err, path);
    }
    if (res.statusCode !== 200) throw await this.#failure(res);
    try {
      return decodeValue(((await res.body.json()) as { value?: unknown }).value);
    } catch (err) {
      throw this.#transportError(err, path);
    }
  }

  /**
   * JSON call whose answer is raw bytes (shard reads), copied as it arrives into one buffer from `alloc` (a pool's:
   * remote-drive.ts) when the answer says its length, instead of joining the socket's chunks into a new allocation
   * at the end: each such allocation counts towards V8's next full GC (docs/performance.md, eighteenth session).
   */
  async fetchBytes(path: string, args: readonly unknown[], alloc: (length: number) => Buffer = Buffer.allocUnsafe): Promise<Buffer> {
    const body = JSON.stringify({ args: encodeValue(args) });
    const signal = AbortSignal.timeout(this.#timeoutMs);
    let res: Dispatcher.ResponseData;
    try {
      res = await this.#pool.request({ method: 'POST', path, headers: this.#headers('application/json'), body, signal });
    } catch (err) {
      throw this.#transportError(err, path);
    }
    if (res.statusCode !== 200) throw await this.#failure(res);
    try {
      const length = Number(res.headers['content-length']);
      if (!Number.isSafeInteger(length) || length < 0) return Buffer.from(await res.body.arrayBuffer());
      if (length > MAX_SHARD_READ) throw new RpcProtocolError(`node ${this.origin} announced ${length} bytes, more than a shard read holds`);
      const out = alloc(length);
      let at = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        if (at + chunk.length > length) throw new RpcProtocolError(`node ${this.origin} sent more than the ${length} bytes it announced`);
        at += chunk.copy(out, at);
      }
      if (at !== length) throw new RpcProtocolError(`node ${this.origin} sent ${at} of the ${length} bytes it announced`);
      return out;
    } catch (err) {
      throw this.#transportError(err, path);
    }
  }

  /**
   * Starts a streaming `PUT path` (shard data). The request is sent as the body is written; a peer that stops
   * reading makes `write` fail after the deadline instead of buffering without bound.
   */
  upload(path: string): RpcUpload {
    const body = new PassThrough({ highWaterMark: UPLOAD_HIGH_WATER });
    const ctl = new AbortController();
    let failed: Error | undefined;
    let answered: Dispatcher.ResponseData | undefined;
    body.on('error', () => undefined);
    const pending = this.#pool.request({
      method: 'PUT', path, headers: this.#headers('application/octet-stream'), body, signal: ctl.signal,
    }).then((res) => { answered = res; return res; }, (err: unknown) => {
      failed ??= this.#transportError(err, path);
      throw failed;
    });
    pending.catch(() => undefined);
    const deadline = <T>(p: Promise<T>, what: string): Promise<T> => {
      let timer: NodeJS.Timeout | undefined;
      const t = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          failed ??= new RpcUnavailableError(this.origin, `no progress on ${what} within ${this.#timeoutMs} ms`);
          ctl.abort(failed);
          reject(failed);
        }, this.#timeoutMs);
      });
      return Promise.race([p, t]).finally(() => clearTimeout(timer));
    };
    const early = async (): Promise<void> => {
      if (failed !== undefined) throw failed;
      // The peer answered before the body ended: it refused the upload (e.g. the drive is offline).
      if (answered !== undefined) throw (failed = answered.statusCode === 200 ? new RpcProtocolError('early answer') : await this.#failure(answered));
    };
    return {
      write: async (buffers) => {
        await early();
        const data = Buffer.concat(buffers as Uint8Array[]);
        if (body.write(data)) return;
        await deadline(new Promise<void>((resolve, reject) => {
          const done = (): void => { body.off('drain', done); body.off('close', done); resolve(); };
          body.on('drain', done);
          body.on('close', done);
          pending.catch(reject);
        }), path);
        await early();
      },
      finish: async () => {
        await early();
        body.end();
        const res = await deadline(pending, path);
        if (res.statusCode !== 200) throw await this.#failure(res);
        try {
          return decodeValue(((await res.body.json()) as { value?: unknown }).value);
        } catch (err) {
          throw this.#transportError(err, path);
        }
      },
      abort: async () => {
        failed ??= new RpcUnavailableError(this.origin, 'upload aborted');
        ctl.abort(failed);
        body.destroy();
        await pending.then((res) => res.body.dump(), () => undefined);
      },
    };
  }

  /** Closes the pool's connections. */
  async close(): Promise<void> {
    await this.#pool.close();
  }
}
