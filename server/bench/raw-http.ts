/**
 * The benchmark's HTTP/1.1 transport: keep-alive sockets that read into one reused buffer (`onread`) and a parser
 * that only counts body bytes unless the text is wanted. Why not undici: client and server share the two cores,
 * and undici copies every received byte into its WASM parser's memory and allocates a buffer per socket read;
 * receiving a 64 MiB body cost 40–58 ms of CPU that way against 16–23 ms here (a microbenchmark: a node:http server
 * in the same process sending 64 MiB, 4 in flight, three interleaved pairs; docs/performance.md, ninth session).
 * It speaks what the scenarios need: requests with a Content-Length body (a Buffer or a stream), answers framed by
 * Content-Length or chunked encoding (RFC 9112 §6.3, §7.1), keep-alive unless the server says close. A connection
 * silent for `timeoutMs` (default 120 s, as a stuck server must fail the run rather than hang it) is dropped and its
 * request rejected.
 */
import net from 'node:net';
import { once } from 'node:events';
import type { Readable } from 'node:stream';

/** What one exchange gives back: status, body bytes counted, the body itself only when kept. */
export interface RawResponse {
  status: number;
  bytes: number;
  body: Buffer;
}

/**
 * One read buffer for every socket: `onread` hands each read to the callback synchronously, which is done with it
 * before the next read into the buffer, whichever socket that is.
 */
const READ_BUFFER = Buffer.allocUnsafe(1024 * 1024);
const HEAD_END = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);

/** Incremental response parser; `feed` returns how many bytes of `b` belong to this response (the rest is not ours). */
class ResponseParser {
  status = 0;
  bytes = 0;
  close = false;
  /** The server's `Keep-Alive: timeout=N` hint in seconds, when it gives one. */
  keepAliveS: number | undefined;
  done = false;
  /** Keep the body: asked for, or (when not said) an error status, so the caller can quote it. Known once the head is read. */
  readonly #keep: boolean | undefined;
  #keepBody = false;
  readonly #noBody: boolean;
  #pending = EMPTY;
  #inHead = true;
  /** Body bytes still expected: of the whole body (Content-Length) or of the current chunk (chunked). */
  #left = 0;
  #chunked = false;
  /** Chunked framing state: reading a size line, chunk data, the CRLF after data, or the trailer section. */
  #state: 'size' | 'data' | 'crlf' | 'trailer' = 'size';
  #line = '';
  #kept: Buffer[] = [];

  constructor(keep: boolean | undefined, noBody: boolean) {
    this.#keep = keep;
    this.#noBody = noBody;
  }

  get body(): Buffer { return this.#kept.length === 0 ? EMPTY : Buffer.concat(this.#kept); }

  feed(b: Buffer, n: number): number {
    let off = 0;
    if (this.#inHead) {
      // The head may arrive over several reads (and its end straddle two): search what came so far.
      const prev = this.#pending.length;
      const all = prev === 0 ? b.subarray(0, n) : Buffer.concat([this.#pending, b.subarray(0, n)]);
      const at = all.indexOf(HEAD_END);
      if (at < 0) { this.#pending = Buffer.from(all); return n; }
      this.#pending = EMPTY;
      this.#parseHead(all.toString('latin1', 0, at));
      off = at + 4 - prev;
      if (this.done) return off;
    }
    while (off < n && !this.done) off = this.#chunked ? this.#chunkStep(b, off, n) : this.#take(b, off, n);
    return off;
  }

  #parseHead(head: string): void {
    const lines = head.split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
    if (m === null) throw new Error(`not an HTTP/1.1 response: ${JSON.stringify(lines[0]?.slice(0, 80))}`);
    this.status = Number(m[1]);
    this.#keepBody = this.#keep ?? this.status >= 300;
    let length = -1;
    for (const line of lines.slice(1)) {
      const c = line.indexOf(':');
      const name = line.slice(0, c).trim().toLowerCase();
      const value = line.slice(c + 1).trim().toLowerCase();
      if (name === 'content-length') length = Number(value);
      else if (name === 'transfer-encoding' && value.includes('chunked')) this.#chunked = true;
      else if (name === 'connection' && value.includes('close')) this.close = true;
      else if (name === 'keep-alive') this.keepAliveS = Number(/timeout=(\d+)/.exec(value)?.[1] ?? Number.NaN) || undefined;
    }
    this.#inHead = false;
    if (this.#noBody || this.status === 204 || this.status === 304) { this.done = true; return; }
    if (this.#chunked) return;
    if (length < 0) throw new Error(`HTTP ${this.status} without Content-Length or chunked framing`);
    this.#left = length;
    if (length === 0) this.done = true;
  }

  #take(b: Buffer, off: number, n: number): number {
    const take = Math.min(this.#left, n - off);
    this.bytes += take;
    this.#left -= take;
    if (this.#keepBody) this.#kept.push(Buffer.from(b.subarray(off, off + take)));
    if (!this.#chunked && this.#left === 0) this.done = true;
    return off + take;
  }

  #chunkStep(b: Buffer, off: number, n: number): number {
    if (this.#state === 'data') {
      const next = this.#take(b, off, n);
      if (this.#left === 0) this.#state = 'crlf';
      return next;
    }
    const nl = b.indexOf(10, off);
    const end = nl < 0 || nl >= n ? n : nl + 1;
    this.#line += b.toString('latin1', off, end);
    if (!this.#line.endsWith('\n')) return end;
    const line = this.#line.trim();
    this.#line = '';
    if (this.#state === 'crlf') this.#state = 'size';
    else if (this.#state === 'trailer') { if (line === '') this.done = true; }
    else {
      this.#left = Number.parseInt(line.split(';')[0]!, 16);
      if (!Number.isFinite(this.#left)) throw new Error(`bad chunk size line ${JSON.stringify(line)}`);
      this.#state = this.#left === 0 ? 'trailer' : 'data';
    }
    return end;
  }
}

/** One keep-alive connection; one exchange at a time. */
class Connection {
  readonly socket: net.Socket;
  #parser: ResponseParser | undefined;
  #settle: ((err: Error | undefined) => void) | undefined;
  dead = false;
  /** When the server will close this connection if it stays idle (its Keep-Alive hint), less a second's margin. */
  idleUntil = Number.POSITIVE_INFINITY;

  constructor(host: string, port: number, timeoutMs: number) {
    this.socket = net.connect({
      host, port, noDelay: true,
      onread: { buffer: READ_BUFFER, callback: (n: number, b: Uint8Array) => this.#onRead(n, b as Buffer) },
    });
    const fail = (err: Error): void => { this.dead = true; this.#settle?.(err); };
    this.socket.on('error', fail);
    this.socket.on('close', () => fail(new Error('connection closed before the response ended')));
    this.socket.setTimeout(timeoutMs, () => {
      fail(new Error(`no answer from ${host}:${port} for ${timeoutMs} ms`));
      this.socket.destroy();
    });
  }

  #onRead(n: number, b: Buffer): boolean {
    const p = this.#parser;
    if (p === undefined) { this.dead = true; this.socket.destroy(); return false; }
    try {
      const used = p.feed(b, n);
      if (p.done) {
        if (used < n || p.close) { this.dead = true; this.socket.destroy(); }
        this.idleUntil = p.keepAliveS === undefined ? Number.POSITIVE_INFINITY : Date.now() + (p.keepAliveS - 1) * 1000;
        this.#parser = undefined;
        this.#settle?.(undefined);
      }
    } catch (err) {
      this.dead = true;
      this.socket.destroy();
      this.#settle?.(err as Error);
    }
    return true;
  }

  async exchange(head: string, body: Buffer | Readable | undefined, parser: ResponseParser): Promise<void> {
    this.#parser = parser;
    const finished = new Promise<void>((resolve, reject) => {
      this.#settle = (err) => { this.#settle = undefined; if (err === undefined) resolve(); else reject(err); };
    });
    finished.catch(() => undefined); // awaited below; the body may still be going out when it fails

    if (body === undefined || Buffer.isBuffer(body)) {
      // Corked: head and body leave in one writev, without copying the body next to the head.
      this.socket.cork();
      this.socket.write(head, 'latin1');
      if (body !== undefined && body.length > 0) this.socket.write(body);
      this.socket.uncork();
    } else {
      this.socket.write(head, 'latin1');
      for await (const c of body as AsyncIterable<Buffer>) {
        // Answered (or failed) before the whole body went out: the connection cannot carry another request.
        if (this.dead || parser.done) { this.dead = true; break; }
        if (!this.socket.write(c)) await Promise.race([once(this.socket, 'drain'), finished.catch(() => undefined)]);
      }
    }
    await finished;
  }
}

/** A pool of keep-alive connections to one origin (http:// only: the bench runs on loopback). */
export class RawHttp {
  readonly #host: string;
  readonly #port: number;
  readonly #idle: Connection[] = [];
  readonly #all = new Set<Connection>();
  readonly #timeoutMs: number;

  constructor(origin: string, opts: { timeoutMs?: number } = {}) {
    this.#timeoutMs = opts.timeoutMs ?? 120_000;
    const u = new URL(origin);
    if (u.protocol !== 'http:') throw new Error(`the bench's client speaks http:// only, not ${u.protocol}`);
    this.#host = u.hostname;
    this.#port = Number(u.port || 80);
  }

  /**
   * Sends one request; the answer's body is counted and kept only when `keep` is true (or, when undefined, for an
   * error status, so the caller can quote it).
   */
  async request(method: string, path: string, headers: Record<string, string>, body?: Buffer | Readable, keep?: boolean): Promise<RawResponse> {
    // A connection idle past the server's Keep-Alive hint may be closing as the request goes out: not reused
    // (Node servers close idle sockets after 5 s and say so).
    let conn = this.#idle.pop();
    while (conn !== undefined && (conn.dead || Date.now() > conn.idleUntil)) {
      conn.dead = true;
      conn.socket.destroy();
      this.#all.delete(conn);
      conn = this.#idle.pop();
    }
    if (conn === undefined) { conn = new Connection(this.#host, this.#port, this.#timeoutMs); this.#all.add(conn); }
    let head = `${method} ${path} HTTP/1.1\r\n`;
    for (const [k, v] of Object.entries(headers)) head += `${k}: ${v}\r\n`;
    head += '\r\n';
    const parser = new ResponseParser(keep, method === 'HEAD');
    try {
      await conn.exchange(head, body, parser);
    } catch (err) {
      conn.dead = true;
      conn.socket.destroy();
      this.#all.delete(conn);
      throw err;
    }
    if (conn.dead) { conn.socket.destroy(); this.#all.delete(conn); } else this.#idle.push(conn);
    return { status: parser.status, bytes: parser.bytes, body: parser.body };
  }

  destroy(): void {
    for (const c of this.#all) { c.dead = true; c.socket.destroy(); }
    this.#all.clear();
    this.#idle.length = 0;
  }
}
