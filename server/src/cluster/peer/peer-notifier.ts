/**
 * Tells every peer about a change (IAM records, bucket records): one authenticated JSON POST per peer, all in
 * parallel, best effort with a deadline per call. A dead or slow peer costs at most one timeout, never a hang,
 * and is reported, not thrown — it catches up by its own periodic reload or cache expiry.
 */
import { request } from 'undici';
import { RpcTokenSource } from '../rpc/index.js';
import type { RpcCredentials } from '../rpc/index.js';

/** Options of {@link PeerNotifier}. */
export interface PeerNotifierOptions {
  /** `host:port` of every other node. */
  peers: readonly string[];
  credentials: RpcCredentials;
  /** Deadline of one call (default 3 s). */
  timeoutMs?: number;
  /** Called for each peer that did not confirm. */
  onFailure?: (node: string, reason: string) => void;
}

/** How one peer answered. */
export type PeerNotifyOutcome = { node: string; ok: true } | { node: string; ok: false; reason: string };

/** See the module comment. */
export class PeerNotifier {
  readonly #peers: readonly string[];
  readonly #tokens: RpcTokenSource;
  readonly #timeoutMs: number;
  readonly #onFailure: ((node: string, reason: string) => void) | undefined;

  constructor(opts: PeerNotifierOptions) {
    this.#peers = opts.peers;
    this.#tokens = new RpcTokenSource(opts.credentials);
    this.#timeoutMs = opts.timeoutMs ?? 3_000;
    this.#onFailure = opts.onFailure;
  }

  /** POSTs `payload` as JSON to `path` on every peer; resolves with each peer's outcome, never rejects. */
  async post(path: string, payload: unknown): Promise<PeerNotifyOutcome[]> {
    const body = JSON.stringify(payload);
    return Promise.all(this.#peers.map(async (node): Promise<PeerNotifyOutcome> => {
      const reason = await this.#call(node, path, body);
      if (reason === undefined) return { node, ok: true };
      this.#onFailure?.(node, reason);
      return { node, ok: false, reason };
    }));
  }

  /** undefined on success, else why the peer did not confirm. */
  async #call(node: string, path: string, body: string): Promise<string | undefined> {
    const t = this.#timeoutMs;
    try {
      const res = await request(`http://${node}${path}`, {
        method: 'POST', body, headers: { authorization: this.#tokens.header(), 'content-type': 'application/json' },
        signal: AbortSignal.timeout(t), headersTimeout: t, bodyTimeout: t,
      });
      const text = await res.body.text();
      if (res.statusCode === 200) return undefined;
      let message = text.slice(0, 200);
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
      } catch { /* not our JSON */ }
      return `HTTP ${res.statusCode}: ${message}`;
    } catch (err) {
      const e = err as { code?: string; name?: string; message?: string };
      return e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' ? `no answer within ${t} ms` : (e.code ?? e.message ?? 'error');
    }
  }
}
