import { ACME_CHALLENGE_PREFIX, CONTAINER_PATHS, PORTS } from '../layout.js';

/** View model of the ACME HTTP-01 responder script (HAProxy + ACME only). */
export interface AcmeResponderView {
  prefix: string;
  webroot: string;
  port: number;
}

/** HAProxy cannot serve files, so a tiny Node responder answers the challenge path (DOCKER.md §3 design note). */
export function acmeResponderViewModel(): AcmeResponderView {
  return { prefix: ACME_CHALLENGE_PREFIX, webroot: CONTAINER_PATHS.responderWebroot, port: PORTS.acmeResponder };
}
