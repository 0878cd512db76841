/**
 * Tells every peer to reload changed IAM records (the client side of iam-reload-plugin.ts), through
 * PeerNotifier: best effort, a deadline per call, failures reported, not thrown — a peer that missed it catches
 * up at its next periodic full reload.
 */
import type { RpcCredentials } from '../rpc/index.js';
import { IAM_RELOAD_PATH } from './iam-reload-plugin.js';
import type { IamReloadItem } from './iam-reload-plugin.js';
import { PeerNotifier } from './peer-notifier.js';
import type { PeerNotifyOutcome } from './peer-notifier.js';

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
export type IamNotifyOutcome = PeerNotifyOutcome;

/** See the module comment. */
export class IamReloadNotifier {
  readonly #notifier: PeerNotifier;

  constructor(opts: IamReloadNotifierOptions) {
    this.#notifier = new PeerNotifier(opts);
  }

  /** Asks every peer to reload `items` (all records when undefined); resolves with each peer's outcome, never rejects. */
  notify(items?: readonly IamReloadItem[]): Promise<IamNotifyOutcome[]> {
    return this.#notifier.post(IAM_RELOAD_PATH, items === undefined ? {} : { changes: items });
  }
}
