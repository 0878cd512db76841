import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { LookupSecret, VerifiedRequest } from '../../auth/index.js';
import type { ObjectLayer } from '../../storage/index.js';
import type { LocalKms } from '../../crypto/index.js';
import type { OwnerView } from './xml/responses.js';
import type { S3Operation } from './router.js';

/**
 * Everything an operation handler needs for one request (STYLE.md §2 `context.ts`): the parsed request,
 * the verified identity and the injected services. Built once by the plugin after routing and auth.
 */
export interface S3Context {
  readonly layer: ObjectLayer;
  readonly region: string;
  readonly now: () => Date;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  readonly log: FastifyBaseLogger;
  /** Decoded query parameters (first value wins). */
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  /** The verified signature, or `{ anonymous: true }` for a request the bucket policy allowed without one. */
  readonly auth: VerifiedRequest;
  /**
   * The single owner of every bucket: the authenticated access key (no ACLs on this server); anonymous
   * requests see the placeholder ANONYMOUS_OWNER.
   */
  readonly owner: OwnerView;
  /**
   * For anonymous requests and for users: whether `action` on one key is allowed (DeleteObjects checks
   * s3:DeleteObject per key). Absent for root, which is always allowed.
   */
  readonly authorizeKey?: (bucket: string, key: string, action: string) => boolean;
  /** True when the bucket came from the Host header (virtual-hosted style), not from the path. */
  readonly virtualHosted: boolean;
  /** Secrets of access keys, for operations that carry their own signature (POST policy forms). */
  readonly lookupSecret?: LookupSecret;
  /**
   * Authorizes `op` for `accessKey` (undefined: an unsigned request), as the plugin does for ordinary requests;
   * throws AccessDenied. Used by operations that authenticate themselves (PostObject).
   */
  readonly authorizeAs?: (accessKey: string | undefined, op: S3Operation) => Promise<void>;
  /** The KMS sealing SSE-S3 object keys; absent when none is configured (SSE-S3 is then refused). */
  readonly kms?: LocalKms;
  /** Operator opt-in: SSE-C keys are accepted over plain HTTP from any peer (not only loopback). */
  readonly sseCOverHttp?: boolean;
}

/**
 * Owner shown to anonymous requests (ListObjects with FetchOwner, ListParts…). AWS shows the bucket
 * owner's canonical id; buckets here have no stored owner, so a fixed placeholder stands in.
 */
export const ANONYMOUS_OWNER: OwnerView = { id: 'anonymous', displayName: 'anonymous' };

/** The first value of a request header. */
export function header(ctx: Pick<S3Context, 'headers'>, name: string): string | undefined {
  const v = ctx.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Sends an XML document with the given status. */
export function sendXml(ctx: S3Context, status: number, xml: string): FastifyReply {
  return ctx.reply.code(status).header('content-type', 'application/xml').send(xml);
}

/** Sends an empty response (`content-length: 0` except for 204). */
export function sendEmpty(ctx: S3Context, status: number): FastifyReply {
  return ctx.reply.code(status).send();
}
