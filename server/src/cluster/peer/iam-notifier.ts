/**
 * Tells every peer to reload changed IAM records (the client side of iam-reload-plugin.ts). Best effort with a
 * deadline per call, all peers in parallel: a dead or slow peer costs at most one timeout, never a hang, and is
 * reported, not thrown — it catches up at its next periodic full reload.
 */
import { request } from 'undici';
import { RpcTokenSource } from '../rpc/index.js';
import type { RpcCredentials } from '../rpc/index.js';
import { IAM_RELOAD_PATH } from './iam-reload-plugin.js';
import type { IamReloadItem } from './iam-reload-plugin.js';

/** Options of {@link IamReloadNotifier}. */
export interface IamReloadNotifierOptions {
  /** `host:port` of every other node. */
  peers: readonly string[];
  credentials: RpcCredentials;
  /** Deadline of one call (default 3 s). */
  timeoutMs?: number;
  /** Called for each peer that did not confirm the reload. */
  onFailure?: (node: string, reason: string) => void;
}

/** How one peer answered. */
export type IamNotifyOutcome = { node: string; ok: true } | { node: string; ok: false; reason: string };

/** See the module comment. */
export class IamReloadNotifier {
  readonly #peers: readonly string[];
  readonly #tokens: RpcTokenSource;
  readonly #timeoutMs: number;
  readonly #onFailure: ((node: string, reason: string) => void) | undefined;

  constructor(opts: IamReloadNotifierOptions) {
    this.#peers = opts.peers;
    this.#tokens = new RpcTokenSource(opts.credentials);
    this.#timeoutMs = opts.timeoutMs ?? 3_000;
    this.#onFailure = opts.onFailure;
  }

  /** Asks every peer to reload `items` (all records when undefined); resolves with each peer's outcome, never rejects. */
  async notify(items?: readonly IamReloadItem[]): Promise<IamNotifyOutcome[]> {
    const body = JSON.stringify(items === undefined ? {} : { changes: items });
    return Promise.all(this.#peers.map(async (node): Promise<IamNotifyOutcome> => {
      const reason = await this.#call(node, body);
      if (reason === undefined) return { node, ok: true };
      this.#onFailure?.(node, reason);
      return { node, ok: false, reason };
    }));
  }

  /** undefined on success, else why the peer did not confirm. */
  async #call(node: string, body: string): Promise<string | undefined> {
    const t = this.#timeoutMs;
    try {
      const res = await request(`http://${node}${IAM_RELOAD_PATH}`, {
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
