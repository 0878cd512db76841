/**
 * What a node tells its peers about itself (issue 4 "a node started with a different layout or credentials is
 * refused with a message that names the difference"): the deployment it belongs to, a fingerprint of its endpoint
 * list and of its root credentials. Fingerprints, not values: no secret and no layout detail crosses the wire.
 */
import { createHash, createHmac } from 'node:crypto';
import type { RpcCredentials } from '../rpc/index.js';
import type { Topology } from '../topology.js';

/** URL prefix of the peer calls (server info, lock, …), served on the S3 port (SPEC §1 rule 2). */
export const PEER_PREFIX = '/svc/peer';

/** Body of `GET /svc/peer/info`. */
export interface PeerInfo {
  /** `host:port` of the answering node, as the endpoint list names it. */
  node: string;
  /** Deployment id once storage is open; '' while the node is still starting. */
  deploymentId: string;
  /** {@link endpointsFingerprint} of the node's topology. */
  endpoints: string;
  /** Number of drives in the node's endpoint list (to name the difference in a refusal). */
  drives: number;
  /** {@link credentialsFingerprint} of the node's root credentials. */
  credentials: string;
  version: string;
}

/**
 * SHA-256 over the normalized endpoint list: every drive's canonical id in pool/set/position order, with each
 * pool's set size and parity. Equal on every node started with the same arguments, whatever its own identity.
 */
export function endpointsFingerprint(t: Topology): string {
  const canonical = t.pools.map((p) => ({ parity: p.parity, sets: p.sets.map((s) => s.map((e) => e.id)) }));
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/** HMAC of a fixed label under the secret key (and over the access key): equal iff the credentials are. */
export function credentialsFingerprint(creds: RpcCredentials): string {
  return createHmac('sha256', creds.secretKey).update(`fp\0${creds.accessKey}`).digest('hex');
}
