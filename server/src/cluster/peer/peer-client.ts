/**
 * Asks a peer for its info with a deadline: a node that is down or slow is "unreachable", one that refuses our
 * token has other credentials (403), never a hang.
 */
import { request } from 'undici';
import { RpcTokenSource } from '../rpc/index.js';
import { PEER_PREFIX } from './peer-info.js';
import type { PeerInfo } from './peer-info.js';

/** Outcome of one {@link fetchPeerInfo}. */
export type PeerAnswer =
  | { kind: 'ok'; info: PeerInfo }
  | { kind: 'rejected' }
  | { kind: 'unreachable'; reason: string };

/** GET `http://<node>/svc/peer/info` with the node token, bounded by `timeoutMs`. */
export async function fetchPeerInfo(node: string, tokens: RpcTokenSource, timeoutMs: number): Promise<PeerAnswer> {
  try {
    const res = await request(`http://${node}${PEER_PREFIX}/info`, {
      method: 'GET', headers: { authorization: tokens.header() },
      signal: AbortSignal.timeout(timeoutMs), headersTimeout: timeoutMs, bodyTimeout: timeoutMs,
    });
    if (res.statusCode === 403) {
      await res.body.dump();
      return { kind: 'rejected' };
    }
    if (res.statusCode !== 200) {
      await res.body.dump();
      return { kind: 'unreachable', reason: `HTTP ${res.statusCode}` };
    }
    const info = await res.body.json() as PeerInfo;
    if (typeof info?.endpoints !== 'string' || typeof info.credentials !== 'string') return { kind: 'unreachable', reason: 'not an svc peer' };
    return { kind: 'ok', info };
  } catch (err) {
    const e = err as { code?: string; name?: string; message?: string };
    return { kind: 'unreachable', reason: e.code ?? e.name ?? e.message ?? 'error' };
  }
}
